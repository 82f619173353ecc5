// ModelPicker: the check every dropped or chosen file goes through before loading.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "model_picker.h"

class ModelPickerTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeFile(const QString& name, const QByteArray& bytes) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }

private slots:
    void acceptsGgufFile() {
        const QString path =
            writeFile("tiny.gguf", QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(1992, '\0'));
        ModelPicker picker;
        QSignalSpy changed(&picker, &ModelPicker::changed);
        QVERIFY(picker.offer(QUrl::fromLocalFile(path)));
        QVERIFY(picker.hasModel());
        QCOMPARE(picker.fileName(), QStringLiteral("tiny.gguf"));
        QCOMPARE(picker.fileSize(), qint64(2000));
        QCOMPARE(picker.sizeText(), QStringLiteral("2.0 KB"));
        QVERIFY(picker.errorMessage().isEmpty());
        QCOMPARE(changed.count(), 1);
    }

    void acceptsUpperCaseExtension() {
        const QString path = writeFile("MODEL.GGUF", QByteArray("GGUF\x03\x00\x00\x00", 8));
        ModelPicker picker;
        QVERIFY(picker.offer(QUrl::fromLocalFile(path)));
    }

    void rejectsOtherExtensionsWithAMessage() {
        const QString path = writeFile("notes.txt", "hello");
        ModelPicker picker;
        QSignalSpy rejected(&picker, &ModelPicker::rejected);
        QVERIFY(!picker.offer(QUrl::fromLocalFile(path)));
        QVERIFY(!picker.hasModel());
        QCOMPARE(rejected.count(), 1);
        QVERIFY2(picker.errorMessage().contains("notes.txt"), qPrintable(picker.errorMessage()));
        QVERIFY(picker.errorMessage().contains(".gguf"));
    }

    void rejectsFakeGgufByItsSignature() {
        const QString path = writeFile("fake.gguf", "<html>not found</html>");
        ModelPicker picker;
        QVERIFY(!picker.offer(QUrl::fromLocalFile(path)));
        QVERIFY(picker.errorMessage().contains("signature"));
    }

    void rejectsMissingFileAndFolder() {
        ModelPicker picker;
        QVERIFY(!picker.offer(QUrl::fromLocalFile(m_dir.filePath("gone.gguf"))));
        QVERIFY(picker.errorMessage().contains("could not be found"));
        QVERIFY(QDir(m_dir.path()).mkdir("folder.gguf"));
        QVERIFY(!picker.offer(QUrl::fromLocalFile(m_dir.filePath("folder.gguf"))));
        QVERIFY(picker.errorMessage().contains("folder"));
    }

    void rejectsRemoteUrls() {
        ModelPicker picker;
        QVERIFY(!picker.offer(QUrl("https://example.com/model.gguf")));
        QVERIFY(picker.errorMessage().contains("not a file on this computer"));
    }

    void keepsPreviousModelAfterARejection() {
        const QString good = writeFile("keep.gguf", "GGUF....");
        ModelPicker picker;
        QVERIFY(picker.offer(QUrl::fromLocalFile(good)));
        QVERIFY(!picker.offer(QUrl::fromLocalFile(writeFile("x.png", "png"))));
        QCOMPARE(picker.fileName(), QStringLiteral("keep.gguf"));
        picker.clearError();
        QVERIFY(picker.errorMessage().isEmpty());
    }

    void formatsSizes() {
        QCOMPARE(ModelPicker::formatBytes(0), QStringLiteral("0 B"));
        QCOMPARE(ModelPicker::formatBytes(999), QStringLiteral("999 B"));
        QCOMPARE(ModelPicker::formatBytes(1185376), QStringLiteral("1.2 MB"));
        QCOMPARE(ModelPicker::formatBytes(637800000LL), QStringLiteral("637.8 MB"));
        QCOMPARE(ModelPicker::formatBytes(4368439296LL), QStringLiteral("4.4 GB"));
    }
};

QTEST_GUILESS_MAIN(ModelPickerTest)
#include "model_picker_test.moc"
