// bench/strategies' judge (issue 14): the codec points it runs, the
// per-cell means it reports, and the goals it exits non-zero on. The
// benchmark's verdict is only as good as this arithmetic, so each goal
// kind with a bound is shown both ways: a cell set that meets it, and the
// same set moved just past its bound, which must miss it. ("Synaptic
// reaches the target" can only be missed; the plain-loop goal is made in
// strategies.cpp from a measurement, not here.)
#include "strategies_bench/codec_point.h"
#include "strategies_bench/goals.h"
#include "strategies_bench/run_table.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace synaptic;
using bench::BenchRun;
using bench::CellStats;
using bench::Goal;

namespace {

CellStats cell(const std::string &strategy, const std::string &codec, double accuracy, double center, double wan,
               double total, std::optional<double> wanToTarget = 1e6, std::optional<double> timeToTarget = 10) {
    CellStats c;
    c.strategy = strategy;
    c.codec = codec;
    c.runs = 3;
    c.accuracyMean = c.accuracyMin = c.accuracyMax = accuracy;
    c.centerMean = center;
    c.wanMean = wan;
    c.totalMean = total;
    c.wanToTargetMean = wanToTarget;
    c.timeToTargetMean = timeToTarget;
    return c;
}

// A default-scenario cell set in which synaptic meets every goal, most
// with a little room: 0.4 pp under the best baseline at fp32 (hier_diloco,
// listed after param_server so "best" is not "first") and 0.15 pp under at
// mixed, 1,100× and 1,200× fewer center bytes, 2.2× fewer on all links,
// 0.9× hier_diloco's WAN to target (param_server's, far larger, must not
// be the one compared), mixed 4.4× fewer WAN bytes than fp32 at a 0.25 pp
// cost.
std::vector<CellStats> defaultCellsMeetingEveryGoal() {
    return {
        cell("synaptic", "fp32", 0.890, 1e6, 1e6, 1e9, 0.9e6),
        cell("synaptic", "mixed", 0.8875, 0.25e6, 0.2272e6, 0.5e9, 0.9e6),
        cell("param_server", "fp32", 0.893, 1.1e9, 1.1e9, 2.2e9, 2e9),
        cell("param_server", "mixed", 0.889, 0.3e9, 0.3e9, 1.1e9, 1e9),
        cell("hier_diloco", "fp32", 0.894, 5e6, 5e6, 1.2e9, 1e6),
        cell("hier_diloco", "mixed", 0.8885, 1.5e6, 1.5e6, 0.6e9, 1e6),
    };
}

const Goal *findGoal(const std::vector<Goal> &goals, const std::string &part) {
    const auto it = std::find_if(goals.begin(), goals.end(),
                                 [&](const Goal &g) { return g.what.find(part) != std::string::npos; });
    return it == goals.end() ? nullptr : &*it;
}

CellStats &cellOf(std::vector<CellStats> &cells, const std::string &strategy, const std::string &codec) {
    for (auto &c : cells)
        if (c.strategy == strategy && c.codec == codec)
            return c;
    throw std::logic_error("no cell " + strategy + " " + codec);
}

} // namespace

class TestBenchJudge : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void codecPointsName_data() {
        QTest::addColumn<QString>("point");
        QTest::addColumn<QString>("gradients");
        QTest::addColumn<QString>("values");
        QTest::addColumn<QString>("center");
        QTest::newRow("fp32") << "fp32" << "fp32" << "fp32" << "fp32";
        QTest::newRow("int8") << "int8" << "int8" << "int8" << "int8";
        QTest::newRow("mixed: fp16 in regions, int8 to the center") << "mixed" << "fp16" << "fp16" << "int8";
        QTest::newRow("per class") << "topk:0.05/fp16/int8" << "topk:0.05" << "fp16" << "int8";
        QTest::newRow("mixed+zstd: a zstd stage after the center's int8")
            << "mixed+zstd" << "fp16" << "fp16" << "int8+zstd";
        QTest::newRow("per class with zstd") << "fp16/fp16+zstd/int8+zstd" << "fp16" << "fp16+zstd" << "int8+zstd";
    }
    void codecPointsName() {
        QFETCH(QString, point);
        QFETCH(QString, gradients);
        QFETCH(QString, values);
        QFETCH(QString, center);
        const auto k = bench::codecPoint(point.toStdString());
        QCOMPARE(QString::fromStdString(engine::codecName(k.gradients)), gradients);
        QCOMPARE(QString::fromStdString(engine::codecName(k.values)), values);
        QCOMPARE(QString::fromStdString(engine::codecName(k.center)), center);
    }

    void badCodecPointsAreRefusedByName_data() {
        QTest::addColumn<QString>("point");
        QTest::newRow("unknown codec") << "fp8";
        QTest::newRow("two classes") << "fp16/int8";
        QTest::newRow("four classes") << "fp16/fp16/int8/int8";
        QTest::newRow("empty class") << "fp16//int8";
    }
    void badCodecPointsAreRefusedByName() {
        QFETCH(QString, point);
        try {
            bench::codecPoint(point.toStdString());
            QFAIL("accepted");
        } catch (const std::invalid_argument &e) {
            // Names the point as typed, whichever part of it is wrong.
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains("codec point '" + point + "'"), qPrintable(what));
        }
    }

    // The bug this guards: the point replaced the config's whole codec
    // block, so `value_deltas: false` was reset to true and whole-value
    // runs could not be made.
    void applyingAPointKeepsValueDeltas() {
        for (const bool deltas : {false, true}) {
            engine::CodecKnobs k;
            k.valueDeltas = deltas;
            bench::applyCodecPoint("mixed", k);
            QCOMPARE(k.valueDeltas, deltas);
            QCOMPARE(k.gradients, engine::parseCodec("fp16"));
            QCOMPARE(k.values, engine::parseCodec("fp16"));
            QCOMPARE(k.center, engine::parseCodec("int8"));
        }
    }

    void cellsAreMeansOverSeeds() {
        std::vector<BenchRun> runs(3);
        const double accuracy[] = {0.88, 0.89, 0.90};
        for (int i = 0; i < 3; ++i) {
            runs[std::size_t(i)].strategy = "synaptic";
            runs[std::size_t(i)].codec = "fp32";
            runs[std::size_t(i)].seed = std::uint64_t(i + 1);
            runs[std::size_t(i)].finalAccuracy = accuracy[i];
            runs[std::size_t(i)].bytesToCenter = std::uint64_t(100 * (i + 1));
            runs[std::size_t(i)].wanBytes = std::uint64_t(1000 * (i + 1));
            runs[std::size_t(i)].totalBytes = std::uint64_t(10000 * (i + 1));
            runs[std::size_t(i)].timeToTarget = double(i + 1);
            runs[std::size_t(i)].wanToTarget = std::uint64_t(10 * (i + 1));
        }
        BenchRun other = runs[0];
        other.strategy = "param_server";
        runs.push_back(other);
        auto cells = bench::summarize(runs);
        QCOMPARE(int(cells.size()), 2);
        const CellStats *s = bench::findCell(cells, "synaptic", "fp32");
        QVERIFY(s);
        QCOMPARE(s->runs, 3);
        QVERIFY(std::abs(s->accuracyMean - 0.89) < 1e-12);
        QCOMPARE(s->accuracyMin, 0.88);
        QCOMPARE(s->accuracyMax, 0.90);
        QVERIFY(std::abs(s->accuracyStd - 0.01) < 1e-12); // sample standard deviation
        QVERIFY(std::abs(s->centerMean - 200) < 1e-9);
        QVERIFY(std::abs(s->wanMean - 2000) < 1e-9);
        QVERIFY(std::abs(s->totalMean - 20000) < 1e-9);
        QVERIFY(s->timeToTargetMean && std::abs(*s->timeToTargetMean - 2) < 1e-12);
        QVERIFY(s->wanToTargetMean && std::abs(*s->wanToTargetMean - 20) < 1e-12);

        // One seed that never reached the target: no mean time or bytes to
        // it for the cell (a mean over the seeds that did would flatter
        // it), whichever of the two its run lacks.
        for (const bool lacksTime : {true, false}) {
            auto partial = runs;
            if (lacksTime)
                partial[1].timeToTarget.reset();
            else
                partial[1].wanToTarget.reset();
            cells = bench::summarize(partial);
            s = bench::findCell(cells, "synaptic", "fp32");
            QVERIFY(!s->timeToTargetMean);
            QVERIFY(!s->wanToTargetMean);
        }
    }

    void defaultGoalsAllMetWithRoom() {
        std::vector<std::string> skipped;
        const auto goals = bench::scenarioGoals("default", defaultCellsMeetingEveryGoal(), skipped);
        QVERIFY2(skipped.empty(), skipped.empty() ? "" : skipped.front().c_str());
        // accuracy ×2, center ×2, all links ×2, WAN to target ×2, front, codec ×2
        QCOMPARE(int(goals.size()), 11);
        for (const auto &g : goals)
            QVERIFY2(g.met, g.what.c_str());
    }

    // Each goal, pushed just past its bound, is missed, and only that one.
    void eachDefaultGoalCanBeMissed_data() {
        QTest::addColumn<int>("change");
        QTest::addColumn<QString>("goal");
        QTest::newRow("accuracy 0.55 pp under the best") << 0 << "[fp32] synaptic mean accuracy";
        QTest::newRow("mixed accuracy 0.51 pp under") << 1 << "[mixed] synaptic mean accuracy";
        QTest::newRow("center 999x") << 2 << "[fp32] center bytes";
        QTest::newRow("mixed center 999x") << 3 << "[mixed] center bytes";
        QTest::newRow("all links 1.9x") << 4 << "[fp32] bytes on all links";
        QTest::newRow("mixed all links 1.9x") << 5 << "[mixed] bytes on all links";
        QTest::newRow("WAN to target 1.1x") << 6 << "[fp32] WAN bytes to target";
        QTest::newRow("mixed WAN to target 1.1x") << 7 << "[mixed] WAN bytes to target";
        QTest::newRow("never reaches the target") << 8 << "[fp32] synaptic reaches the target";
        QTest::newRow("a baseline above both points") << 9 << "baseline points above";
        QTest::newRow("one at equal WAN bytes counts") << 10 << "baseline points above";
        QTest::newRow("mixed cuts 3.9x") << 11 << "fp32 / mixed";
        QTest::newRow("mixed costs 0.4 pp") << 12 << "accuracy cost of mixed";
    }
    void eachDefaultGoalCanBeMissed() {
        QFETCH(int, change);
        QFETCH(QString, goal);
        auto cells = defaultCellsMeetingEveryGoal();
        CellStats &fp32 = cellOf(cells, "synaptic", "fp32");
        CellStats &mixed = cellOf(cells, "synaptic", "mixed");
        switch (change) {
        case 0: fp32.accuracyMean = 0.8885; break; // 0.55 under hier_diloco's best, 0.45 under param_server's
        case 1: cellOf(cells, "param_server", "mixed").accuracyMean = 0.8875 + 0.0051; break;
        case 2: fp32.centerMean = 1.1e9 / 999; break;
        case 3: mixed.centerMean = 0.3e9 / 999; break;
        case 4: fp32.totalMean = 2.2e9 / 1.9; break;
        case 5: mixed.totalMean = 1.1e9 / 1.9; break;
        case 6: fp32.wanToTargetMean = 1.1e6; break;
        case 7: mixed.wanToTargetMean = 1.1e6; break;
        case 8: fp32.wanToTargetMean.reset(); break;
        case 9: cells.push_back(cell("gossip", "int8", 0.8905, 0.1e6, 0.1e6, 1e9)); break;
        case 10: cells.push_back(cell("gossip", "int8", 0.8905, 0.2272e6, 0.2272e6, 1e9)); break; // mixed's bytes
        case 11: mixed.wanMean = 1e6 / 3.9; break;
        case 12: mixed.accuracyMean = 0.890 - 0.004; break;
        }
        std::vector<std::string> skipped;
        const auto goals = bench::scenarioGoals("default", cells, skipped);
        const Goal *g = findGoal(goals, goal.toStdString());
        QVERIFY2(g, qPrintable(goal));
        QVERIFY2(!g->met, g->what.c_str());
        for (const auto &other : goals)
            QVERIFY2(&other == g || other.met, other.what.c_str()); // only that one
    }

    // mixed+zstd, when it was run, is judged on lines of its own against
    // fp32: met at a 4.4x cut, missed at 3.9x, with its accuracy cost.
    void zstdPointIsJudgedOnItsOwnLines() {
        for (const double cut : {4.4, 3.9}) {
            auto cells = defaultCellsMeetingEveryGoal();
            cells.push_back(cell("synaptic", "mixed+zstd", 0.8875, 0.25e6, 1e6 / cut, 0.5e9, 0.9e6));
            std::vector<std::string> skipped;
            const auto goals = bench::scenarioGoals("default", cells, skipped);
            const Goal *g = findGoal(goals, "fp32 / mixed+zstd");
            QVERIFY(g);
            QCOMPARE(g->met, cut > 4);
            const Goal *cost = findGoal(goals, "accuracy cost of mixed+zstd");
            QVERIFY(cost);
            QVERIFY(cost->met);
            // Plain mixed keeps its own line (found whole: "fp32 / mixed" is also part of mixed+zstd's).
            const auto plain = std::find_if(goals.begin(), goals.end(),
                                            [](const Goal &g) { return g.what == "synaptic WAN bytes: fp32 / mixed"; });
            QVERIFY(plain != goals.end());
            QVERIFY(plain->met);
            for (const auto &note : skipped)
                QVERIFY2(note.find("codec goal") == std::string::npos, note.c_str());
        }
        // Without plain mixed, the report says the point was not run.
        auto cells = defaultCellsMeetingEveryGoal();
        cellOf(cells, "synaptic", "mixed").codec = "mixed+zstd";
        std::vector<std::string> skipped;
        const auto goals = bench::scenarioGoals("default", cells, skipped);
        QVERIFY(findGoal(goals, "fp32 / mixed+zstd"));
        QVERIFY(std::find(skipped.begin(), skipped.end(), "codec goal: needs synaptic at fp32 and mixed") != skipped.end());
    }

    // "Some codec point on or above the front": one point dominated is
    // enough to stay met, and a baseline only as accurate does not count.
    void frontNeedsOnePointAndStrictlyMoreAccuracy() {
        auto cells = defaultCellsMeetingEveryGoal();
        cells.push_back(cell("gossip", "int8", 0.8901, 0.5e6, 0.5e6, 1e9)); // above the fp32 point only
        std::vector<std::string> skipped;
        auto goals = bench::scenarioGoals("default", cells, skipped);
        const Goal *g = findGoal(goals, "baseline points above");
        QVERIFY(g && g->met);
        QVERIFY2(g->what.find("(mixed)") != std::string::npos, g->what.c_str());

        // With the fp32 point dominated as above, the mixed point decides:
        // a baseline at exactly its accuracy with fewer bytes is not above it.
        cells.push_back(cell("hier_allreduce", "int8", 0.8875, 0.1e6, 0.1e6, 1e9));
        goals = bench::scenarioGoals("default", cells, skipped);
        g = findGoal(goals, "baseline points above");
        QVERIFY(g && g->met);
        QVERIFY2(g->what.find("(mixed)") != std::string::npos, g->what.c_str());
    }

    // Never reaching the target is a miss even with no competitor to
    // compare against (in both scenarios that time or bytes to it count).
    void neverReachingTheTargetIsMissedAlone() {
        for (const char *scenario : {"default", "straggler"}) {
            std::vector<CellStats> cells = {cell("synaptic", "fp32", 0.88, 1e6, 1e6, 1e9, std::nullopt, std::nullopt)};
            std::vector<std::string> skipped;
            const auto goals = bench::scenarioGoals(scenario, cells, skipped);
            const Goal *g = findGoal(goals, "synaptic reaches the target");
            QVERIFY2(g, scenario);
            QVERIFY(!g->met);
        }
    }

    // A goal whose competitor did not run is listed as skipped, never met.
    void missingBaselinesAreSkippedNotMet() {
        auto cells = defaultCellsMeetingEveryGoal();
        std::erase_if(cells, [](const CellStats &c) { return c.strategy == "param_server"; });
        std::vector<std::string> skipped;
        const auto goals = bench::scenarioGoals("default", cells, skipped);
        QVERIFY(!findGoal(goals, "center bytes"));
        QVERIFY(!findGoal(goals, "all links"));
        QCOMPARE(int(std::count_if(skipped.begin(), skipped.end(),
                                   [](const std::string &s) { return s.find("param_server") != std::string::npos; })),
                 2);

        cells = defaultCellsMeetingEveryGoal();
        std::erase_if(cells, [](const CellStats &c) { return c.strategy == "hier_diloco"; });
        skipped.clear();
        const auto withoutDiloco = bench::scenarioGoals("default", cells, skipped);
        QVERIFY(!findGoal(withoutDiloco, "WAN bytes to target"));
        QCOMPARE(int(std::count_if(skipped.begin(), skipped.end(),
                                   [](const std::string &s) { return s.find("hier_diloco") != std::string::npos; })),
                 2);
    }

    void nonIidJudgesAgainstParamServerOnly() {
        std::vector<CellStats> cells = {cell("synaptic", "fp32", 0.860, 1e6, 1e6, 1e9),
                                        cell("param_server", "fp32", 0.869, 1e9, 1e9, 2e9),
                                        cell("hier_diloco", "fp32", 0.900, 5e6, 5e6, 1e9)};
        std::vector<std::string> skipped;
        auto goals = bench::scenarioGoals("noniid", cells, skipped);
        QCOMPARE(int(goals.size()), 1);
        QVERIFY2(goals[0].met, goals[0].what.c_str()); // 0.9 pp under param_server; hier_diloco is not the bar
        cells[0].accuracyMean = 0.858;
        goals = bench::scenarioGoals("noniid", cells, skipped);
        QVERIFY(!goals[0].met);
        // Without param_server there is no bar, whatever else ran.
        cells.erase(cells.begin() + 1);
        skipped.clear();
        goals = bench::scenarioGoals("noniid", cells, skipped);
        QVERIFY(goals.empty());
        QCOMPARE(int(skipped.size()), 1);
        QVERIFY2(skipped[0].find("param_server") != std::string::npos, skipped[0].c_str());
    }

    void stragglerNeedsOneAndAHalfTimesFaster() {
        std::vector<CellStats> cells = {cell("synaptic", "fp32", 0.88, 1e6, 1e6, 1e9, 1e6, 4.0),
                                        cell("hier_diloco", "fp32", 0.89, 5e6, 5e6, 1e9, 1e6, 6.0),
                                        cell("hier_allreduce", "fp32", 0.89, 0, 5e6, 1e9, 1e6, 60.0)};
        std::vector<std::string> skipped;
        auto goals = bench::scenarioGoals("straggler", cells, skipped);
        QCOMPARE(int(goals.size()), 2);
        QVERIFY(goals[0].met && goals[1].met); // exactly 1.5x counts
        cells[1].timeToTargetMean = 5.9;
        goals = bench::scenarioGoals("straggler", cells, skipped);
        QVERIFY(!findGoal(goals, "hier_diloco / synaptic")->met);
        QVERIFY(findGoal(goals, "hier_allreduce / synaptic")->met);
        cells[1].timeToTargetMean = 6.0;
        cells[2].timeToTargetMean = 5.9;
        goals = bench::scenarioGoals("straggler", cells, skipped);
        QVERIFY(findGoal(goals, "hier_diloco / synaptic")->met);
        QVERIFY(!findGoal(goals, "hier_allreduce / synaptic")->met);
        // A competitor that never reached the target in every seed has no
        // time to compare: skipped, not met.
        cells[2].timeToTargetMean.reset();
        skipped.clear();
        goals = bench::scenarioGoals("straggler", cells, skipped);
        QVERIFY(!findGoal(goals, "hier_allreduce / synaptic"));
        QCOMPARE(int(skipped.size()), 1);
        // Synaptic never reaching the target is one miss, not a skip.
        cells[0].timeToTargetMean.reset();
        goals = bench::scenarioGoals("straggler", cells, skipped);
        QCOMPARE(int(goals.size()), 1);
        QVERIFY(findGoal(goals, "synaptic reaches the target"));
        QVERIFY(!findGoal(goals, "synaptic reaches the target")->met);
    }
};

QTEST_APPLESS_MAIN(TestBenchJudge)
#include "tst_bench_judge.moc"
