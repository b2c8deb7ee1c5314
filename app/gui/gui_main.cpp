// synaptic: the desktop control plane. Wiring only: parse flags, build the
// window, connect it (DESIGN.md §2).
#include "gui_options.h"

#include "ui/main_window.h"
#include "synaptic_version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QScreen>
#include <QTimer>

#include <cstdio>

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Synaptic");
    QApplication::setApplicationName("Synaptic");
    QApplication::setApplicationVersion(SYNAPTIC_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Synaptic control plane: trains the default model live and plots it.");
    parser.addHelpOption();
    parser.addVersionOption();
    synaptic::app::addGuiOptions(parser);
    parser.process(app);

    synaptic::app::GuiOptions options;
    try {
        options = synaptic::app::readGuiOptions(parser);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "synaptic: error: %s\n\n%s", e.what(), qPrintable(parser.helpText()));
        return 2;
    }

    synaptic::ui::MainWindow window(options.train);
    window.show();
    if (options.autostart)
        QTimer::singleShot(0, &window, &synaptic::ui::MainWindow::startTraining);
    if (!options.screenshotPath.isEmpty()) {
        QTimer::singleShot(int(options.screenshotAfterSeconds * 1000), &window, [&] {
            const bool ok = window.grab().save(options.screenshotPath);
            std::fprintf(ok ? stdout : stderr, ok ? "screenshot saved to %s\n" : "cannot save screenshot to %s\n",
                         qPrintable(options.screenshotPath));
            window.close();
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return QApplication::exec();
}
