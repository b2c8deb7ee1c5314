#include "topology_legend.h"

#include "topology_items.h"
#include "topology_style.h"
#include "topology_text.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>
#include <QVector>

#include <functional>

namespace synaptic::ui {

namespace {

constexpr int kPixels = 11;
constexpr int kLineHeight = 18;
constexpr int kPadding = 6;
constexpr int kSpacing = 14;
constexpr int kSampleWidth = 40;

using topology_text::tr;

// One legend entry: a sample `width` px wide drawn by `draw` into a rect, then its label.
struct Entry {
    int width;
    std::function<void(QPainter *, const QRectF &)> draw;
    QString label;
};

Entry dot(const QColor &fill, const QString &label, bool cross = false) {
    return {12,
            [fill, cross](QPainter *p, const QRectF &r) {
                p->setPen(QPen(fill.darker(150), 1));
                p->setBrush(fill);
                p->drawEllipse(r.center(), 5, 5);
                if (cross) {
                    p->setPen(QPen(QColor(0xd0, 0xd0, 0xd0), 1.2));
                    p->drawLine(r.center() + QPointF(-2.5, -2.5), r.center() + QPointF(2.5, 2.5));
                    p->drawLine(r.center() + QPointF(-2.5, 2.5), r.center() + QPointF(2.5, -2.5));
                }
            },
            label};
}

QVector<Entry> entries() {
    // A wedge from quiet to busiest shows that width and colour grow together.
    const auto bandwidth = [](QPainter *p, const QRectF &r) {
        const qreal y = r.center().y();
        const QPen quiet = linkPenFor(1e-3, 1, false);
        const QPen mid = linkPenFor(0.03, 1, false);
        const QPen busy = linkPenFor(1, 1, false);
        QLinearGradient gradient(r.left(), y, r.right(), y);
        gradient.setColorAt(0, quiet.color());
        gradient.setColorAt(0.5, mid.color());
        gradient.setColorAt(1, busy.color());
        const QPointF wedge[] = {{r.left() + 1, y - quiet.widthF() / 2},
                                 {r.right() - 1, y - busy.widthF() / 2},
                                 {r.right() - 1, y + busy.widthF() / 2},
                                 {r.left() + 1, y + quiet.widthF() / 2}};
        p->setPen(Qt::NoPen);
        p->setBrush(gradient);
        p->drawPolygon(wedge, 4);
    };
    const auto down = [](QPainter *p, const QRectF &r) {
        p->setPen(linkPenFor(0, 0, true));
        p->drawLine(QPointF(r.left() + 1, r.center().y()), QPointF(r.right() - 1, r.center().y()));
    };
    return {dot(modeColor(QStringLiteral("training")), tr("training")),
            dot(modeColor(QStringLiteral("catching_up")), tr("catching up")),
            dot(modeColor(QStringLiteral("read_only")), tr("read-only")),
            dot(modeColor(QStringLiteral("down")), tr("down"), true),
            dot(centerColor(true), tr("center")),
            {kSampleWidth, bandwidth, tr("line width = bandwidth")},
            {kSampleWidth, down, tr("link down")}};
}

// Flows the entries left to right, wrapping when the viewport is narrow;
// `paint` is null when only measuring. Returns the number of lines.
int flow(int width, const std::function<void(const Entry &, QPoint)> &paint) {
    const QFontMetrics metrics(topologyFont(kPixels));
    int lines = 1;
    int x = kPadding;
    for (const Entry &entry : entries()) {
        const int w = entry.width + 4 + metrics.horizontalAdvance(entry.label);
        if (x > kPadding && x + w > width - kPadding) {
            ++lines;
            x = kPadding;
        }
        if (paint)
            paint(entry, QPoint(x, (lines - 1) * kLineHeight));
        x += w + kSpacing;
    }
    return lines;
}

} // namespace

int topologyLegendHeight(int viewportWidth) { return flow(viewportWidth, nullptr) * kLineHeight + kPadding; }

void paintTopologyLegend(QPainter *painter, const QRect &viewport, const TopologyPalette &palette) {
    const int height = topologyLegendHeight(viewport.width());
    const int top = viewport.bottom() + 1 - height;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(palette.boxBorder, 1));
    painter->drawLine(QPointF(viewport.left(), top + 0.5), QPointF(viewport.right() + 1, top + 0.5));
    painter->setFont(topologyFont(kPixels));
    const int firstLine = top + kPadding / 2;
    flow(viewport.width(), [&](const Entry &entry, QPoint at) {
        const QRectF sample(viewport.left() + at.x(), firstLine + at.y(), entry.width, kLineHeight);
        entry.draw(painter, sample);
        painter->setPen(palette.text);
        painter->drawText(QRectF(sample.right() + 4, sample.top(), 400, kLineHeight), Qt::AlignLeft | Qt::AlignVCenter,
                          entry.label);
    });
    painter->restore();
}

} // namespace synaptic::ui
