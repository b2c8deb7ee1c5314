// Progress of long jobs (issue 18 §1): the ProgressMeter itself, then the
// real synaptic-node process with its stderr on a pipe (a plain line at
// least every ten seconds), on a pseudo-terminal (a bar redrawn in place),
// and with --quiet (nothing).
#include "core/engine/progress_meter.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

using synaptic::engine::ProgressMeter;
using synaptic::engine::ProgressStyle;

namespace {

QString env(const char *name) { return qEnvironmentVariable(name); }

QString tinyConfig() { return env("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json"; }

// What a meter wrote to a temporary file.
QString written(std::FILE *f) {
    std::fflush(f);
    std::rewind(f);
    QByteArray bytes;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
        bytes.append(buf, qsizetype(n));
    return QString::fromUtf8(bytes);
}

// Runs synaptic-node on a pseudo-terminal (its stdout and stderr), as a
// user's shell would, and returns everything it wrote there.
QByteArray runOnTerminal(const QStringList &args) {
    const QByteArray program = env("SYNAPTIC_NODE").toLocal8Bit();
    std::vector<QByteArray> owned{program};
    for (const auto &a : args)
        owned.push_back(a.toLocal8Bit());
    std::vector<char *> argv;
    for (auto &a : owned)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int master = -1;
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        execv(argv[0], argv.data());
        _exit(127);
    }
    QByteArray out;
    char buf[4096];
    for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) // EIO once the child has exited
        out.append(buf, qsizetype(n));
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        out.prepend("EXIT STATUS " + QByteArray::number(status) + "\n");
    return out;
}

} // namespace

class TestNodeProgress : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!env("SYNAPTIC_NODE").isEmpty(), "run through ctest"); }

    void plainLinesAreRateLimitedAndSayWhereTheJobIs() {
        std::FILE *f = std::tmpfile();
        qint64 elapsedMs = 0;
        {
            ProgressStyle style;
            style.terminal = false;
            style.plainEverySeconds = 0.2;
            ProgressMeter meter(f, "job", style);
            QElapsedTimer clock;
            clock.start();
            for (int i = 0; i <= 100; ++i) {
                meter.update(i / 100.0, "item " + std::to_string(i));
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            elapsedMs = clock.elapsed();
            meter.line("a result");
            meter.finish("done");
            meter.update(1, "after finish: not shown");
        }
        const QString text = written(f);
        std::fclose(f);
        const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
        // ~1 s of updates (longer on a busy machine) at one line per 0.2 s:
        // the first at once, then one per interval, never more.
        const auto progress = lines.filter(QRegularExpression("^job +\\d+%  item \\d+"));
        QVERIFY2(progress.size() >= 3 && progress.size() <= 1 + elapsedMs / 200, qPrintable(text));
        QVERIFY2(!progress.filter("ETA ").isEmpty(), qPrintable(text));
        QVERIFY(!text.contains('\r'));
        QVERIFY(lines.contains("a result"));
        QCOMPARE(lines.last(), QString("job: done"));
        QVERIFY(!text.contains("after finish"));
    }

    void terminalBarRedrawsInPlaceAndLinesClearIt() {
        std::FILE *f = std::tmpfile();
        {
            ProgressStyle style;
            style.terminal = true;
            style.redrawEverySeconds = 0;
            ProgressMeter meter(f, "job", style);
            meter.update(0.5, "half");
            meter.line("a result");
            meter.update(-1, "unknown total");
        }
        const QString text = written(f);
        std::fclose(f);
        QVERIFY2(text.startsWith("\r\033[Kjob [############............]  50%  half"), qPrintable(text));
        // The line first erases the bar, and the destructor erases the last one.
        QVERIFY2(text.contains("\r\033[Ka result\n\r\033[Kjob  unknown total\r\033[K"), qPrintable(text));
    }

    void quietMeterWritesNothingButLines() {
        std::FILE *f = std::tmpfile();
        {
            ProgressStyle style;
            style.quiet = true;
            style.terminal = true;
            ProgressMeter meter(f, "job", style);
            meter.update(0.5, "half");
            meter.line("a warning still shows");
            meter.finish("summary");
        }
        QCOMPARE(written(f), QString("a warning still shows\n"));
        std::fclose(f);
    }

    // The check: stderr on a pipe (a log, CI), a run long enough for
    // several intervals (6 edges, ~20 s here); no ten seconds pass without a
    // progress line.
    void pipedSimPrintsALineAtLeastEveryTenSeconds() {
        QProcess p;
        QElapsedTimer clock;
        std::vector<std::pair<qint64, QString>> lines; // ms since start, line
        QByteArray pending;
        QObject::connect(&p, &QProcess::readyReadStandardError, [&] {
            pending += p.readAllStandardError();
            for (qsizetype nl; (nl = pending.indexOf('\n')) >= 0; pending.remove(0, nl + 1))
                lines.emplace_back(clock.elapsed(), QString::fromUtf8(pending.left(nl)));
        });
        clock.start();
        p.start(env("SYNAPTIC_NODE"), {"sim", "--config", tinyConfig(), "--steps", "30", "--threads", "2"});
        QVERIFY(p.waitForFinished(600000));
        QCOMPARE(p.exitCode(), 0);
        const qint64 total = clock.elapsed();
        if (total < 12000)
            QSKIP("the run was too short here to check a ten-second cadence");
        qint64 last = 0, worst = 0;
        int progress = 0;
        QString sample;
        for (const auto &[at, line] : lines) {
            QVERIFY2(!line.contains('\r'), qPrintable(line)); // no bar on a pipe
            if (!line.startsWith("sim"))
                continue;
            ++progress;
            worst = std::max(worst, at - last);
            last = at;
            if (line.contains("ETA"))
                sample = line;
        }
        worst = std::max(worst, total - last);
        QVERIFY2(progress >= 3, qPrintable(QString::number(progress)));
        QVERIFY2(worst <= 10000, qPrintable(QString("longest silence %1 ms").arg(worst)));
        // Where the run is: steps, samples, virtual time, accuracy, ETA.
        QVERIFY2(QRegularExpression("^sim synaptic +\\d+%  step \\d+/30, \\d+ samples, [0-9.]+ virtual s, "
                                    "accuracy [0-9.]+  ETA \\S+$")
                     .match(sample)
                     .hasMatch(),
                 qPrintable(sample));
    }

    void terminalSimRedrawsItsBar() {
        const QByteArray out = runOnTerminal({"sim", "--config", tinyConfig(), "--steps", "10", "--threads", "2"});
        QVERIFY2(!out.startsWith("EXIT"), out.constData());
        QVERIFY2(out.count("\r\033[Ksim synaptic [") >= 2, out.constData());
        // The results table follows on lines of its own.
        QVERIFY2(out.contains("strategy"), out.constData());
    }

    void quietSilencesProgress() {
        QProcess p;
        p.start(env("SYNAPTIC_NODE"), {"sim", "--config", tinyConfig(), "--steps", "3", "--threads", "2", "--quiet"});
        QVERIFY(p.waitForFinished(300000));
        QCOMPARE(p.exitCode(), 0);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(!err.contains("sim synaptic ") && !err.contains("ETA"), qPrintable(err));
        QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains("synaptic"));
        const QByteArray onTerminal =
            runOnTerminal({"sim", "--config", tinyConfig(), "--steps", "3", "--threads", "2", "--quiet"});
        QVERIFY2(!onTerminal.contains("\r\033[K"), onTerminal.constData());
    }
};

QTEST_GUILESS_MAIN(TestNodeProgress)
#include "tst_node_progress.moc"
