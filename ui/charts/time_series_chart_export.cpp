// TimeSeriesChart's exports: PNG and SVG of the chart, CSV of the visible range.
#include "time_series_chart.h"

#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>

#include <cmath>

namespace synaptic::ui {

// ---- Export ----

namespace {

// Writes through QSaveFile so a failed export never leaves half a file behind.
template <typename Write>
QString saveFile(const QString &path, QIODevice::OpenMode mode, Write write) {
    QSaveFile file(path);
    if (!file.open(mode))
        return TimeSeriesChart::tr("Could not write %1: %2").arg(path, file.errorString());
    if (!write(file))
        return TimeSeriesChart::tr("Could not render %1").arg(path);
    if (!file.commit())
        return TimeSeriesChart::tr("Could not write %1: %2").arg(path, file.errorString());
    return {};
}

QString csvField(const QString &text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    return QLatin1Char('"') + QString(text).replace(QLatin1String("\""), QLatin1String("\"\"")) +
           QLatin1Char('"');
}

QString csvNumber(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 15) : QString();
}

} // namespace

QString TimeSeriesChart::exportPng(const QString &path) {
    return saveFile(path, QIODevice::WriteOnly, [&](QSaveFile &f) { return grab().save(&f, "PNG"); });
}

QString TimeSeriesChart::exportSvg(const QString &path) {
    return saveFile(path, QIODevice::WriteOnly, [&](QSaveFile &f) {
        QSvgGenerator svg;
        svg.setOutputDevice(&f);
        svg.setSize(size());
        svg.setViewBox(rect());
        svg.setTitle(chart()->title());
        QPainter painter;
        if (!painter.begin(&svg))
            return false;
        // The scene, not a grab of the widget, so lines stay vectors.
        render(&painter, QRectF(rect()), viewport()->rect());
        return painter.end();
    });
}

QString TimeSeriesChart::exportCsv(const QString &path) {
    return saveFile(path, QIODevice::WriteOnly | QIODevice::Text, [&](QSaveFile &f) {
        QTextStream out(&f);
        out << "series,steps,virtual_s,wall_s,value,smoothed\n";
        for (const Series &s : m_series) {
            const QVector<double> &x = xs(s);
            const auto first = std::lower_bound(x.cbegin(), x.cend(), m_visible.first) - x.cbegin();
            const auto last = std::upper_bound(x.cbegin(), x.cend(), m_visible.second) - x.cbegin();
            const QString name = csvField(s.name);
            for (auto i = first; i < last; ++i)
                out << name << ',' << csvNumber(s.x[0][i]) << ',' << csvNumber(s.x[1][i]) << ','
                    << csvNumber(s.x[2][i]) << ',' << csvNumber(s.value[i]) << ','
                    << csvNumber(s.smoothed[i]) << '\n';
        }
        out.flush();
        return out.status() == QTextStream::Ok;
    });
}

} // namespace synaptic::ui
