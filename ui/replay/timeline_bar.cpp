#include "timeline_bar.h"

#include "replay_controller.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>

#include <cmath>

namespace synaptic::ui {

TimelineBar::TimelineBar(ReplayController *controller, QWidget *parent)
    : QToolBar(tr("Replay"), parent), m_controller(controller), m_speed(new QComboBox),
      m_slider(new QSlider(Qt::Horizontal)), m_time(new QLabel) {
    setObjectName("replayTimeline");
    m_play = addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Play"));
    m_play->setShortcut(QKeySequence(Qt::Key_Space));
    m_play->setToolTip(tr("Play / pause the replay (Space)"));
    connect(m_play, &QAction::triggered, this,
            [this] { m_controller->isPlaying() ? m_controller->pause() : m_controller->play(); });
    auto *step = addAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Step"));
    step->setShortcut(QKeySequence(Qt::Key_Period));
    step->setToolTip(tr("Step to the next instant with events (.)"));
    connect(step, &QAction::triggered, m_controller, &ReplayController::step);
    for (double k : {0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 20.0})
        m_speed->addItem(tr("%1× virtual time").arg(k), k);
    m_speed->setToolTip(tr("virtual seconds replayed per wall-clock second"));
    m_speed->setCurrentIndex(m_speed->findData(0.1));
    m_controller->setSpeed(0.1);
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_controller->setSpeed(m_speed->itemData(i).toDouble()); });
    addWidget(m_speed);
    m_slider->setRange(int(std::floor(controller->begin() * 1e3)), int(std::ceil(controller->end() * 1e3)));
    m_slider->setToolTip(tr("Drag to scrub: every view shows the state at that virtual time"));
    m_slider->setMinimumWidth(400);
    connect(m_slider, &QSlider::valueChanged, this, [this](int ms) {
        if (std::lround(m_controller->position() * 1e3) != ms)
            m_controller->seek(ms / 1e3);
    });
    addWidget(m_slider);
    addWidget(m_time);
    connect(m_controller, &ReplayController::positionChanged, this, &TimelineBar::showPosition);
    connect(m_controller, &ReplayController::playingChanged, this, [this](bool playing) {
        m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        m_play->setText(playing ? tr("Pause") : tr("Play"));
    });
    showPosition(controller->begin());
}

void TimelineBar::showPosition(double t) {
    const QSignalBlocker block(m_slider);
    m_slider->setValue(int(std::lround(t * 1e3)));
    m_time->setText(tr("  %1 / %2 virtual s").arg(t, 0, 'f', 3).arg(m_controller->end(), 0, 'f', 3));
}

} // namespace synaptic::ui
