#pragma once

#include <QObject>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QUndoCommand>
#include <QUndoStack>

#include <functional>
#include <type_traits>

namespace synaptic::ui {

// One knob edit: redo applies the new value, undo the old one, and both put
// the spin box where the value is without re-triggering an edit. What
// "apply" means is the caller's: send a command to the engine (ControlPanel),
// or re-highlight a view and persist the value (HighlightThresholds).
// GUI thread only.
template <typename Box>
class KnobEdit : public QUndoCommand {
public:
    KnobEdit(Box *box, double before, double after, std::function<void(double)> apply)
        : m_box(box), m_before(before), m_after(after), m_apply(std::move(apply)) {
        setText(QObject::tr("set %1 to %2").arg(box->objectName()).arg(after));
    }
    void redo() override { apply(m_after); }
    void undo() override { apply(m_before); }

private:
    void apply(double v) {
        {
            const QSignalBlocker block(m_box);
            m_box->setValue(v);
        }
        m_box->setProperty("committed", v);
        m_apply(v);
    }
    Box *m_box;
    double m_before, m_after;
    std::function<void(double)> m_apply;
};

// Makes every committed value of `box` one KnobEdit on `stack`.
// `makeApply(value)` runs when the edit is made and returns what applies a
// value, so whatever else it depends on (e.g. which edge) is fixed then and
// undo reverts the same target even if that choice changed since.
template <typename Box, typename MakeApply>
void bindKnobEdits(QObject *context, QUndoStack *stack, Box *box, MakeApply makeApply) {
    box->setKeyboardTracking(false); // one edit per committed value, not per keystroke
    box->setProperty("committed", box->value());
    using Value = std::conditional_t<std::is_same_v<Box, QSpinBox>, int, double>;
    QObject::connect(box, qOverload<Value>(&Box::valueChanged), context, [stack, box, makeApply](Value value) {
        const double before = box->property("committed").toDouble();
        stack->push(new KnobEdit<Box>(box, before, double(value), makeApply(double(value))));
    });
}

} // namespace synaptic::ui
