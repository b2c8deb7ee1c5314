#include "chart_panel.h"

#include "time_series_chart.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSlider>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace synaptic::ui {

namespace {
constexpr int kSliderSteps = 99; // the slider is in hundredths: 0 .. 0.99, as in TensorBoard
}

ChartPanel::ChartPanel(TimeSeriesChart *chart, QWidget *parent)
    : QWidget(parent), m_chart(chart), m_toolbar(new QWidget(this)),
      m_smoothing(new QSlider(Qt::Horizontal, m_toolbar)), m_smoothingValue(new QLabel(m_toolbar)),
      m_xAxis(new QComboBox(m_toolbar)), m_resetZoom(new QToolButton(m_toolbar)),
      m_stack(new QStackedWidget(this)), m_placeholder(new QLabel(this)) {
    auto *bar = new QHBoxLayout(m_toolbar);
    bar->setContentsMargins(0, 0, 0, 0);

    auto *smoothingLabel = new QLabel(tr("Smoothing"), m_toolbar);
    smoothingLabel->setBuddy(m_smoothing);
    m_smoothing->setRange(0, kSliderSteps);
    m_smoothing->setMaximumWidth(160);
    m_smoothing->setToolTip(tr("Exponential moving average weight, as in TensorBoard; "
                               "the raw curve stays faint behind the smoothed one"));
    m_smoothing->setValue(int(std::lround(chart->smoothing() * 100)));
    // Fits "0.99" so the toolbar does not jitter while dragging.
    m_smoothingValue->setMinimumWidth(m_smoothingValue->fontMetrics().horizontalAdvance(
        QStringLiteral("0.00 ")));
    m_smoothingValue->setText(QString::number(m_smoothing->value() / 100.0, 'f', 2));
    connect(m_smoothing, &QSlider::valueChanged, this, &ChartPanel::onSmoothingSlider);

    m_xAxis->addItem(tr("steps"), int(XAxisKind::Steps));
    m_xAxis->addItem(tr("virtual time"), int(XAxisKind::VirtualSeconds));
    m_xAxis->addItem(tr("wall time"), int(XAxisKind::WallSeconds));
    m_xAxis->setToolTip(tr("Clock for the x axis"));
    m_xAxis->setCurrentIndex(m_xAxis->findData(int(chart->xAxisKind())));
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_chart->setXAxisKind(XAxisKind(m_xAxis->itemData(index).toInt()));
    });

    m_resetZoom->setText(tr("Reset zoom"));
    m_resetZoom->setToolTip(tr("Follow the data again (Home or double-click on the chart)"));
    m_resetZoom->setEnabled(chart->isZoomed());
    connect(m_resetZoom, &QToolButton::clicked, chart, &TimeSeriesChart::resetZoom);
    connect(chart, &TimeSeriesChart::zoomChanged, m_resetZoom, &QToolButton::setEnabled);

    auto *exportButton = new QToolButton(m_toolbar);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(exportButton);
    menu->addAction(tr("PNG..."), this, [this] {
        exportTo(tr("Export chart as PNG"), tr("PNG images (*.png)"), QStringLiteral("png"),
                 &TimeSeriesChart::exportPng);
    });
    menu->addAction(tr("SVG..."), this, [this] {
        exportTo(tr("Export chart as SVG"), tr("SVG images (*.svg)"), QStringLiteral("svg"),
                 &TimeSeriesChart::exportSvg);
    });
    menu->addAction(tr("CSV of visible range..."), this, [this] {
        exportTo(tr("Export visible range as CSV"), tr("CSV files (*.csv)"),
                 QStringLiteral("csv"), &TimeSeriesChart::exportCsv);
    });
    exportButton->setMenu(menu);

    bar->addWidget(smoothingLabel);
    bar->addWidget(m_smoothing);
    bar->addWidget(m_smoothingValue);
    bar->addSpacing(12);
    bar->addWidget(m_xAxis);
    bar->addStretch(1);
    bar->addWidget(m_resetZoom);
    bar->addWidget(exportButton);

    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_stack->addWidget(chart);
    m_stack->addWidget(m_placeholder);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 6, 0); // keep the toolbar clear of the dock frame
    layout->setSpacing(2);
    layout->addWidget(m_toolbar);
    layout->addWidget(m_stack, 1);
}

void ChartPanel::setPlaceholder(const QString &text) {
    m_placeholder->setText(text);
    const bool placeholder = !text.isEmpty();
    m_stack->setCurrentWidget(placeholder ? static_cast<QWidget *>(m_placeholder) : m_chart);
    // The controls act on a chart that is not there.
    m_toolbar->setVisible(!placeholder);
}

void ChartPanel::onSmoothingSlider(int value) {
    const double weight = value / 100.0;
    m_smoothingValue->setText(QString::number(weight, 'f', 2));
    m_chart->setSmoothing(weight);
}

void ChartPanel::exportTo(const QString &caption, const QString &filter, const QString &suffix,
                          QString (TimeSeriesChart::*write)(const QString &)) {
    QString path = QFileDialog::getSaveFileName(this, caption, QString(), filter);
    if (path.isEmpty())
        return; // cancelled
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    const QString error = (m_chart->*write)(path);
    Q_EMIT message(error.isEmpty() ? tr("Saved %1").arg(QDir::toNativeSeparators(path)) : error);
}

} // namespace synaptic::ui
