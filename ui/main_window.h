#pragma once

#include "theme.h"
#include "training_session.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QProgressBar;

namespace synaptic::ui {

class TrainingChart;

// The first live window: trains the default model on the engine thread (via
// TrainingSession) and plots loss and test accuracy as they arrive. Geometry,
// dock layout and theme persist in QSettings.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const engine::TrainConfig &config, QWidget *parent = nullptr);
    ~MainWindow() override;

    TrainingSession *session() { return &m_session; }
    TrainingChart *chart() const { return m_chart; }
    QLabel *statusLabel() const { return m_statusLabel; }
    Theme theme() const { return m_theme; }

public Q_SLOTS:
    void startTraining();
    void togglePause();
    void stopTraining();
    void setTheme(synaptic::ui::Theme theme);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildMenus();
    void buildRunPanel();
    void restoreSettings();
    void onProgress(const QVector<engine::TrainProgress> &batch);
    void onStateChanged(TrainingSession::State state);
    void onFinished(const engine::TrainReport &report);
    void onFailed(const QString &message);

    TrainingSession m_session;
    TrainingChart *m_chart = nullptr;
    QLabel *m_statusLabel = nullptr;
    QLabel *m_runSummary = nullptr;
    QProgressBar *m_progressBar = nullptr;
    QAction *m_startAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_darkAction = nullptr;
    QAction *m_lightAction = nullptr;
    Theme m_theme = Theme::Dark;
    engine::TrainProgress m_last;
};

} // namespace synaptic::ui
