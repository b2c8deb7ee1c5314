// The embedding hot-update window (issue 16 §5) on the real scenario: the
// fortune files, the language-ID model and the tiny cluster, run on the
// session's engine thread. Checks what an operator reads: embedding shards in
// the routing table and shard map with the share of rows each edge holds,
// the propagation and spread charts, and the lag bound changed mid-run.
#include "core/data/fortune_corpus.h"
#include "core/engine/sim/cluster_config.h"
#include "ui/charts/time_series_chart.h"
#include "ui/embeddings/hot_update_window.h"
#include "ui/models/routing_table_model.h"
#include "ui/models/shard_map_model.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <map>

using namespace synaptic;
using synaptic::ui::HotUpdateSession;
using synaptic::ui::HotUpdateWindow;
using synaptic::ui::RoutingTableModel;
using synaptic::ui::ShardMapModel;

namespace {

engine::ClusterConfig tinyCluster() {
    const char *dir = std::getenv("SYNAPTIC_TEST_DATA");
    return engine::loadClusterConfig(std::string(dir ? dir : "tests/data") + "/tiny_cluster.json");
}

// Small enough for a test (a 2^14-row table, 300 fortunes per language).
engine::HotUpdateOptions smallScenario() {
    engine::HotUpdateOptions o;
    o.buckets = 1 << 14;
    o.duration = 1.5;
    o.newLanguageAt = 0.5;
    o.warmStartEpochs = 1;
    o.evalEvery = 0.25;
    o.evalSubset = 100;
    o.maxPerLanguage = 300;
    return o;
}

// A missing fortune package answers "no" instead of opening a modal box that
// nobody would close: the test then fails on the message, not on a timeout.
bool refuse(const QString &) { return false; }

} // namespace

class TestHotUpdateWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theViewsShowEmbeddingShardsAndHowTheirRowsSpread() {
        HotUpdateWindow w(tinyCluster());
        w.setMissingDataPrompt(refuse);
        w.setOptions(smallScenario());
        QAbstractItemModelTester routingTester(w.routingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester mapTester(w.shardMap(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Versions in the frames never go back, shard by shard.
        std::map<std::pair<int, int>, std::uint64_t> lastOwner, lastCached;
        bool wentBack = false;
        int frames = 0;
        connect(&w.session(), &HotUpdateSession::framesReady, this, [&](const QVector<engine::HotUpdateFrame> &batch) {
            for (const auto &f : batch) {
                ++frames;
                for (const auto &row : f.routing->rows) {
                    for (std::size_t q = 0; q < row->ownerVersion.size(); ++q) {
                        auto &v = lastOwner[{row->shard.id, int(q)}];
                        wentBack = wentBack || row->ownerVersion[q] < v;
                        v = row->ownerVersion[q];
                    }
                    for (std::size_t e = 0; e < row->cachedVersion.size(); ++e) {
                        auto &v = lastCached[{row->shard.id, int(e)}];
                        wentBack = wentBack || row->cachedVersion[e] < v;
                        v = row->cachedVersion[e];
                    }
                }
            }
        });
        QSignalSpy finished(&w.session(), &HotUpdateSession::finished);
        QSignalSpy failed(&w.session(), &HotUpdateSession::failed);
        w.start();
        QTRY_VERIFY_WITH_TIMEOUT(w.session().state() != HotUpdateSession::State::Running, 240000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(finished.size(), 1);
        QVERIFY(frames >= 10); // one per 0.1 virtual s
        QVERIFY(!wentBack);

        // The routing table: the table's row ranges, each partly held, then the classifier, held whole.
        auto *routing = w.routingModel();
        QVERIFY(routing->rowCount() > 2);
        int embedding = 0;
        for (int r = 0; r < routing->rowCount(); ++r) {
            const QString layer = routing->index(r, RoutingTableModel::Layer).data().toString();
            const QString held = routing->index(r, RoutingTableModel::RowsHeld).data().toString();
            const double mean = routing->index(r, RoutingTableModel::RowsHeld).data(RoutingTableModel::SortRole).toDouble();
            if (layer == "embedding") {
                ++embedding;
                QVERIFY2(held.startsWith("mean "), qPrintable(held));
                QVERIFY2(mean > 0 && mean < 1, qPrintable(held)); // the data touched some rows, not all
                QVERIFY(routing->index(r, RoutingTableModel::RowsHeld).data(Qt::ToolTipRole).toString().contains("eu-0: "));
                QVERIFY(routing->index(r, RoutingTableModel::OwnerVersion).data(RoutingTableModel::SortRole).toULongLong() > 0);
            } else {
                QCOMPARE(layer, QString("classifier"));
                QCOMPARE(held, QString("all"));
            }
        }
        QCOMPARE(embedding, routing->rowCount() - 1);

        // The shard map: every edge says what share of the table's rows it holds.
        auto *map = w.shardMap();
        QCOMPARE(map->rowCount(), 6);
        for (int e = 0; e < map->rowCount(); ++e) {
            const double held = map->edgeIndex(e).data(ShardMapModel::HeldShareRole).toDouble();
            QVERIFY(held > 0 && held < 1);
            QVERIFY(map->edgeIndex(e).data().toString().contains("holds "));
        }

        // The charts: propagation p50 <= p99 wherever rows arrived; the share of the recent new
        // rows the edges hold is a share, and most of them get there.
        const auto p50 = w.propagationChart()->drawnPoints("p50");
        const auto p99 = w.propagationChart()->drawnPoints("p99");
        QVERIFY(!p99.isEmpty());
        QCOMPARE(p50.size(), p99.size());
        for (int i = 0; i < p99.size(); ++i)
            QVERIFY(p50[i].y() <= p99[i].y() && p99[i].y() >= 0);
        const auto held = w.spreadChart()->drawnPoints("rows held");
        QVERIFY(held.size() > 3);
        double most = 0;
        for (const auto &p : held) {
            QVERIFY(p.y() >= 0 && p.y() <= 1);
            QVERIFY(p.x() >= 0.5); // no point before the new language's first rows
            most = std::max(most, p.y());
        }
        QVERIFY2(most > 0.5, qPrintable(QString::number(most)));
        // One accuracy point per evaluation (every 0.25 s from 0 to 1.5), at the evaluation's time.
        const auto origin = w.spreadChart()->drawnPoints("eo eu (origin)");
        QCOMPARE(origin.size(), 7);
        for (int i = 0; i < origin.size(); ++i)
            QCOMPARE(origin[i].x(), 0.25 * i);
        QCOMPARE(w.spreadChart()->drawnPoints("eo us").size(), 7);
        QVERIFY2(w.statusText().startsWith("Finished at 1.50 s"), qPrintable(w.statusText()));
    }

    void theLagBoundChangesWhileTheScenarioRuns() {
        auto config = tinyCluster();
        config.intraRegion.lossRate = 0.05; // lost publishes: edges fall behind and must ask
        HotUpdateWindow w(config);
        w.setMissingDataPrompt(refuse);
        auto o = smallScenario();
        o.duration = 600.0; // the test stops it long before: the GUI's reaction time does not matter
        o.lagBound = 64;    // more than the first 0.5 s can miss: nobody asks
        w.setOptions(o);
        QCOMPARE(w.lagBoundBox()->value(), 64);
        std::vector<engine::HotUpdateFrame> seen;
        connect(&w.session(), &HotUpdateSession::framesReady, this, [&](const QVector<engine::HotUpdateFrame> &batch) {
            for (const auto &f : batch)
                seen.push_back(f);
            // The operator tightens the bound once training is under way.
            if (w.lagBoundBox()->value() == 64 && batch.back().virtualTime >= 0.5)
                w.lagBoundBox()->setValue(1);
            // ... and stops the run once edges have asked under the new bound.
            if (batch.back().lagBound == 1 && batch.back().catchUps > 0)
                w.stop();
        });
        QSignalSpy finished(&w.session(), &HotUpdateSession::finished);
        w.start();
        QTRY_VERIFY_WITH_TIMEOUT(w.session().state() != HotUpdateSession::State::Running, 240000);
        QCOMPARE(finished.size(), 1);
        const auto result = finished.first().first().value<engine::HotUpdateResult>();
        QVERIFY2(result.stopped, "the stop button ends the run early");
        QVERIFY(result.virtualSeconds < o.duration);

        std::size_t firstTight = seen.size();
        for (std::size_t i = 0; i < seen.size(); ++i)
            if (seen[i].lagBound == 1) {
                firstTight = i;
                break;
            }
        QVERIFY2(firstTight < seen.size(), "no frame ran under the new bound");
        QVERIFY(seen[firstTight].virtualTime >= 0.5);
        for (std::size_t i = 0; i < firstTight; ++i) {
            QCOMPARE(seen[i].lagBound, 64);
            QCOMPARE(seen[i].catchUps, std::uint64_t(0));
        }
        QVERIFY(seen.back().catchUps > 0);
        // The guard holds the new bound: no row was used lagging more than it.
        QCOMPARE(seen.back().lagViolations, std::uint64_t(0));
        QCOMPARE(result.lagViolations, std::uint64_t(0));
        QVERIFY(w.statusText().startsWith("Stopped at "));
    }

    void closingTheWindowWhileTheModelWarmsUpDoesNotWait() {
        auto *w = new HotUpdateWindow(tinyCluster());
        w->setMissingDataPrompt(refuse);
        auto o = smallScenario();
        o.buckets = 1 << 20;     // the default table...
        o.warmStartEpochs = 50;  // ...and a warm-up far longer than this test may take
        w->setOptions(o);
        w->start();
        QTest::qWait(1500);
        QElapsedTimer closing;
        closing.start();
        delete w; // stops the run and joins its thread
        QVERIFY2(closing.elapsed() < 20000, qPrintable(QString::number(closing.elapsed())));
    }

    void aMissingFortuneFolderIsNamed() {
        HotUpdateWindow w(tinyCluster());
        w.setMissingDataPrompt(refuse);
        w.setOptions(smallScenario());
        w.setFortuneDir("/nonexistent/fortunes");
        QSignalSpy failed(&w.session(), &HotUpdateSession::failed);
        w.start();
        QTRY_VERIFY_WITH_TIMEOUT(w.session().state() != HotUpdateSession::State::Running, 60000);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains("/nonexistent/fortunes"),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(w.statusText().contains("/nonexistent/fortunes"));
    }

    void missingLanguagesAreNamedAndTheRunGoesOnWithTheInstalledOnes() {
        // Installed without the recommended fortune packages but three (issue 17 §3):
        // English, German and Esperanto (the scenario's new language), linked from Debian's.
        QTemporaryDir dir;
        const QString debian = QString::fromStdString(data::resolveFortuneDir(""));
        for (const char *name : {"fortunes", "de", "eo"})
            QVERIFY(QFile::link(debian + "/" + name, dir.filePath(name)));
        const auto have = data::fortuneAvailability(dir.path().toStdString());
        QCOMPARE(have.present, (std::vector<std::string>{"en", "de", "eo"}));
        QCOMPARE(have.missing.size(), std::size_t(9));

        HotUpdateWindow w(tinyCluster());
        w.setMissingDataPrompt(refuse);
        w.setOptions(smallScenario());
        w.setFortuneDir(dir.path());
        QStringList asked;
        w.setMissingDataPrompt([&](const QString &question) {
            asked << question;
            return false; // first: no
        });
        w.start();
        QCOMPARE(asked.size(), 1);
        for (const char *named : {"Italian", "fortunes-it", "fortunes-zh", "sudo apt install", "3 languages"})
            QVERIFY2(asked.first().contains(named), qPrintable(asked.first()));
        QVERIFY(w.session().state() != HotUpdateSession::State::Running);
        QVERIFY2(w.statusText().contains("fortunes-ru"), qPrintable(w.statusText()));

        // Yes: it runs on the three installed languages.
        w.setMissingDataPrompt([&](const QString &question) {
            asked << question;
            return true;
        });
        QSignalSpy finished(&w.session(), &HotUpdateSession::finished);
        QSignalSpy failed(&w.session(), &HotUpdateSession::failed);
        w.start();
        QCOMPARE(asked.size(), 2);
        QCOMPARE(w.options().languages, (std::vector<std::string>{"en", "de", "eo"}));
        QTRY_VERIFY_WITH_TIMEOUT(w.session().state() != HotUpdateSession::State::Running, 300000);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(finished.size(), 1);

        // Without the new language there is nothing to go on with: said, not asked.
        QTemporaryDir noEsperanto;
        for (const char *name : {"fortunes", "de"})
            QVERIFY(QFile::link(debian + "/" + name, noEsperanto.filePath(name)));
        HotUpdateWindow other(tinyCluster());
        other.setOptions(smallScenario());
        other.setFortuneDir(noEsperanto.path());
        other.setMissingDataPrompt([&](const QString &question) {
            asked << question;
            return true;
        });
        other.start();
        QCOMPARE(asked.size(), 2);
        QVERIFY(other.session().state() != HotUpdateSession::State::Running);
        QVERIFY2(other.statusText().contains("fortunes-eo") && other.statusText().contains("new language"),
                 qPrintable(other.statusText()));
    }
};

QTEST_MAIN(TestHotUpdateWindow)
#include "tst_hot_update_window.moc"
