#pragma once

#include <QDialog>

class QCheckBox;

namespace synaptic::ui {

// The first-run guide (issue 17 §3): five things to try in the control
// plane, each saying where to find it. Shown once when the app has no
// settings yet, and from Help → Getting started. Closing it records that it
// was seen (QSettings "guide/seen"), unless "Show this at startup" stays on.
class GettingStartedDialog : public QDialog {
    Q_OBJECT
public:
    explicit GettingStartedDialog(QWidget *parent = nullptr);

    // True until a guide was closed with "Show this at startup" off (the
    // default on the first run).
    static bool wanted();

    // The five steps as shown, one string each (tests read them).
    static QStringList steps();

    void done(int result) override;

private:
    QCheckBox *m_again;
};

} // namespace synaptic::ui
