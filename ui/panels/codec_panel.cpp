#include "codec_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>

namespace synaptic::ui {

namespace {
// What the panel offers; a config may name another top-k fraction, which
// is added to its box.
const QStringList kChoices{"fp32", "fp16", "fp16+zstd", "int8", "int8+zstd", "topk:0.01", "topk:0.1"};
} // namespace

CodecPanel::CodecPanel(const engine::CodecKnobs &codecs, QWidget *parent) : QWidget(parent) {
    const engine::CodecSpec current[3] = {codecs.gradients, codecs.values, codecs.center};
    const QString tips[3] = {
        tr("What edges push to owners (synaptic), to the center (param_server) or around rings: lossy codecs keep "
           "what they left out per shard and send it next time (error feedback)"),
        tr("What owners and centers send back to edges: with a lossy codec, a delta from the copy each edge holds"),
        tr("The owners' channel to the center (synaptic) and DiLoCo's outer deltas, both ways, with error feedback")};
    const QString labels[3] = {tr("Gradients"), tr("Values to edges"), tr("Center channel")};
    auto *form = new QFormLayout(this);
    for (int k = 0; k < 3; ++k) {
        auto *box = new QComboBox;
        box->setObjectName(QString("codec %1").arg(engine::kCodecTrafficClasses[k]));
        box->addItems(kChoices);
        const QString name = QString::fromStdString(engine::codecName(current[k]));
        if (box->findText(name) < 0)
            box->addItem(name);
        box->setCurrentText(name);
        box->setToolTip(tips[k]);
        connect(box, &QComboBox::textActivated, this, [this, k](const QString &text) {
            Q_EMIT commandRequested(engine::setCodecCommand(k, engine::parseCodec(text.toStdString())));
        });
        m_boxes[std::size_t(k)] = box;
        form->addRow(labels[k], box);
    }
    auto *note = new QLabel(tr("Bytes on the wire are what the codec sends: watch the bandwidth chart."));
    note->setWordWrap(true);
    form->addRow(note);
}

} // namespace synaptic::ui
