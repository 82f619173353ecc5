// A quick look at a GGUF file without loading its weights: header, metadata, a memory
// estimate and whether that fits in the memory free now. Used to validate a model before the
// one in use is dropped, and by the model library to label the files it lists.
#pragma once

#include <QString>
#include <QVariantMap>

namespace hearth::app {

struct ModelProbe {
    QString error;  // empty when the file is a model this engine can load
    QString path;
    QString displayName;  // general.name, or the file name when that is generic ("llama")
    QString architecture;
    QString quantization;  // the type holding most weight bytes: "Q4_K", "F16", ...
    qint64 fileBytes = 0;
    qint64 contextTrained = 0;
    qint64 estimateBytes = 0;   // weights + KV cache + compute at the context the app would use
    qint64 availableBytes = 0;  // memory free now (+ what replacing the loaded model frees)
    qint64 physicalBytes = 0;   // all memory of the machine (0: unknown)
    QString fit;                // "fits", "tight", "wont-fit" ("" when unknown or on error)

    bool ok() const { return error.isEmpty(); }
    QVariantMap toMap() const;
};

// contextLength 0: the model's training context, at most 4096 (what EngineWorker uses); a longer
// one is clamped to the training context unless beyondTraining.
// freedBytes: memory that loading this model releases (the loaded model's file size).
ModelProbe probeModel(const QString& path, int contextLength, bool beyondTraining,
                      const QString& kvType, qint64 freedBytes);

// The name a person recognises: general.name unless it is empty or generic (the architecture's
// name, "model", "llama", ...), else the file name without ".gguf".
QString displayModelName(const QString& generalName, const QString& architecture,
                         const QString& filePath);

// Sizes as file managers show them, decimal with one decimal everywhere in the UI: "4.4 GB",
// "637.8 MB", "2.0 KB", "999 B" (never MiB).
QString formatFileSize(qint64 bytes);

}  // namespace hearth::app
