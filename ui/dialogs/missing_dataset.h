#pragma once

// Issue 17 §3: the control plane trains on Fashion-MNIST. When its files
// are not installed, the app names the package and offers to continue with
// what is there, the language-ID scenario on Debian's fortune files,
// instead of opening a cluster whose engine can only fail.

#include "core/data/fortune_corpus.h"

#include <QString>

#include <functional>
#include <string>

class QMessageBox;
class QWidget;

namespace synaptic::ui {

struct FashionMnistFiles {
    QString folder;  // where they were looked for (--data, $SYNAPTIC_DATA_DIR or Debian's)
    QString missing; // the first file not there; empty when all four are
    bool present() const { return missing.isEmpty(); }
};

// Whether the four Fashion-MNIST files are in `dataDir` (resolved as the
// engine resolves it). Checks that they exist, not that they are valid: a
// damaged file still fails the engine with its own message.
FashionMnistFiles findFashionMnist(const std::string &dataDir);

enum class MissingDataChoice { ContinueWithLangId, Quit };

// What is missing and the package to install, for stderr.
QString missingFashionMnistError(const FashionMnistFiles &files);

// The question (or, without fortune files to offer, the error naming their
// packages too) the app's box shows.
QString missingFashionMnistText(const FashionMnistFiles &files, const data::FortuneAvailability &fortunes);

// Asks; Quit when the scenario cannot run (engine::hotUpdateScenarioCanRun) or the
// user declines. `ask` answers in tests (QMessageBox::Yes/No); without it
// the box runs modally.
MissingDataChoice askAboutMissingFashionMnist(QWidget *parent, const FashionMnistFiles &files,
                                               const data::FortuneAvailability &fortunes,
                                               const std::function<int(QMessageBox &)> &ask = {});

} // namespace synaptic::ui
