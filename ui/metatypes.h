#pragma once

// Engine values that cross from the engine thread to the GUI thread, always
// as copies (DESIGN.md §4).
#include "core/engine/train_report.h"

#include <QMetaType>
#include <QVector>

Q_DECLARE_METATYPE(synaptic::engine::TrainProgress)
Q_DECLARE_METATYPE(synaptic::engine::TrainReport)
