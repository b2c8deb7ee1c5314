// bench/plot_strategies: draws the strategy benchmark's JSON report as one
// PNG: test accuracy against virtual time and against cumulative WAN traffic.
//
//   synaptic-plot-strategies REPORT.json [--out FILE.png] [--title TEXT]
//
// Exit status: 0 written (the PNG's path is printed); 1 the report cannot be
// read or is not JSON, has nothing to plot, or the PNG cannot be written;
// 2 bad arguments, or a report field is missing or of the wrong type.
#include "ui/charts/strategy_comparison_chart.h"
#include "synaptic_version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <cstdio>

using synaptic::ui::StrategyCurve;
using synaptic::ui::StrategyCurvePoint;

namespace {

// A field the plot needs that is missing or ill-typed, named by its path in
// the report (strategies[2].curve[5].accuracy) so the producer can be fixed.
struct FieldError {
    QString path;
    QString problem;
};

QString typeName(QJsonValue::Type type) {
    switch (type) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "a boolean";
    case QJsonValue::Double: return "a number";
    case QJsonValue::String: return "a string";
    case QJsonValue::Array: return "an array";
    case QJsonValue::Object: return "an object";
    case QJsonValue::Undefined: break;
    }
    return "nothing";
}

QJsonValue expect(const QJsonValue &value, const QString &path, QJsonValue::Type type) {
    if (value.isUndefined())
        throw FieldError{path, "missing"};
    if (value.type() != type)
        throw FieldError{path, QString("expected %1, got %2").arg(typeName(type), typeName(value.type()))};
    return value;
}

QString join(const QString &path, const QString &key) { return path.isEmpty() ? key : path + '.' + key; }

double number(const QJsonObject &o, const QString &path, const QString &key) {
    return expect(o.value(key), join(path, key), QJsonValue::Double).toDouble();
}

QJsonArray array(const QJsonObject &o, const QString &path, const QString &key) {
    return expect(o.value(key), join(path, key), QJsonValue::Array).toArray();
}

QJsonObject element(const QJsonArray &a, qsizetype i, const QString &path) {
    return expect(a.at(i), path, QJsonValue::Object).toObject();
}

StrategyCurve readStrategy(const QJsonObject &o, const QString &path) {
    StrategyCurve curve;
    curve.name = expect(o.value("strategy"), join(path, "strategy"), QJsonValue::String).toString();
    const QJsonArray points = array(o, path, "curve");
    for (qsizetype i = 0; i < points.size(); ++i) {
        const QString at = join(path, QString("curve[%1]").arg(i));
        const QJsonObject p = element(points, i, at);
        curve.points.append(StrategyCurvePoint{number(p, at, "virtual_seconds"), number(p, at, "accuracy"),
                                               number(p, at, "wan_bytes"), number(p, at, "bytes_to_center"),
                                               number(p, at, "total_bytes")});
    }
    return curve;
}

struct Report {
    double targetAccuracy = 0;
    QString defaultTitle;
    QVector<StrategyCurve> curves;
};

Report readReport(const QJsonDocument &doc) {
    if (!doc.isObject())
        throw FieldError{"(root)", "expected an object"};
    const QJsonObject root = doc.object();
    Report report;
    report.targetAccuracy = number(root, {}, "target_accuracy");
    if (root.contains("runs")) {
        // bench/strategies since issue 14: one curve per strategy and codec
        // point, from that cell's lowest seed (the others differ by noise;
        // a report merged with --from may list its runs in any order).
        const QJsonArray runs = array(root, {}, "runs");
        QMap<QString, std::pair<double, qsizetype>> lowest; // cell -> seed, index in report.curves
        for (qsizetype i = 0; i < runs.size(); ++i) {
            const QString at = QString("runs[%1]").arg(i);
            const QJsonObject run = element(runs, i, at);
            const double seed = number(run, at, "seed");
            StrategyCurve curve = readStrategy(run, at);
            curve.name += " " + expect(run.value("codec"), join(at, "codec"), QJsonValue::String).toString();
            const auto known = lowest.find(curve.name);
            if (known == lowest.end()) {
                lowest.insert(curve.name, {seed, report.curves.size()});
                report.curves.append(curve);
            } else if (seed < known->first) {
                report.curves[known->second] = curve;
                known->first = seed;
            }
        }
    } else {
        const QJsonArray strategies = array(root, {}, "strategies");
        for (qsizetype i = 0; i < strategies.size(); ++i) {
            const QString at = QString("strategies[%1]").arg(i);
            report.curves.append(readStrategy(element(strategies, i, at), at));
        }
    }
    // config and seed only decorate the title, so they are optional.
    report.defaultTitle = "Strategy comparison";
    if (root.value("config").isString())
        report.defaultTitle += " on " + QFileInfo(root.value("config").toString()).fileName();
    if (root.value("seed").isDouble())
        report.defaultTitle += QString(", seed %1").arg(root.value("seed").toInteger());
    return report;
}

} // namespace

int main(int argc, char **argv) {
    // The tool never shows a window; without this it would need a display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName("synaptic-plot-strategies");
    QApplication::setApplicationVersion(SYNAPTIC_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Plots the strategy benchmark's JSON report as one PNG: test accuracy against "
                                     "virtual time and against cumulative WAN traffic.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("report", "The benchmark's JSON report.", "REPORT.json");
    parser.addOptions({{"out", "Where to write the PNG (default: the report's path with .png).", "FILE.png"},
                       {"title", "Title above both charts (default: from the report's config and seed).", "TEXT"}});
    parser.process(app);
    if (parser.positionalArguments().size() != 1) {
        std::fprintf(stderr, "synaptic-plot-strategies: error: expected one REPORT.json\n\n%s",
                     qPrintable(parser.helpText()));
        return 2;
    }
    const QString reportPath = parser.positionalArguments().first();

    QFile file(reportPath);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "%s: cannot read: %s\n", qPrintable(reportPath), qPrintable(file.errorString()));
        return 1;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        std::fprintf(stderr, "%s: invalid JSON at offset %d: %s\n", qPrintable(reportPath), parseError.offset,
                     qPrintable(parseError.errorString()));
        return 1;
    }

    Report report;
    try {
        report = readReport(doc);
    } catch (const FieldError &e) {
        std::fprintf(stderr, "%s: %s: %s\n", qPrintable(reportPath), qPrintable(e.path), qPrintable(e.problem));
        return 2;
    }

    QString out = parser.value("out");
    if (out.isEmpty()) {
        const QFileInfo info(reportPath);
        out = info.path() + '/' + info.completeBaseName() + ".png";
    }
    const QString title = parser.isSet("title") ? parser.value("title") : report.defaultTitle;
    QString error;
    if (!synaptic::ui::renderStrategyComparison(report.curves, report.targetAccuracy, title, out, &error)) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(reportPath), qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(out));
    return 0;
}
