#pragma once

#include <QString>

class QApplication;

namespace synaptic::ui {

enum class Theme { Dark, Light };

// Fusion style with a dark or light palette, applied application-wide.
void applyTheme(Theme theme);

QString themeName(Theme theme);
Theme themeFromName(const QString &name); // unknown names give Dark

} // namespace synaptic::ui
