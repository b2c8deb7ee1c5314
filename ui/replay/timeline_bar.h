#pragma once

#include <QToolBar>

class QAction;
class QComboBox;
class QLabel;
class QSlider;

namespace synaptic::ui {

class ReplayController;

// The replay timeline: play/pause, step, speed, and a slider to scrub.
// Positions are virtual seconds; the slider works in milliseconds.
class TimelineBar : public QToolBar {
    Q_OBJECT
public:
    TimelineBar(ReplayController *controller, QWidget *parent = nullptr);

    QSlider *slider() const { return m_slider; }

private:
    void showPosition(double t);

    ReplayController *m_controller;
    QAction *m_play;
    QComboBox *m_speed;
    QSlider *m_slider;
    QLabel *m_time;
};

} // namespace synaptic::ui
