// SingleInstance: one Hearth per data folder; a later start hands its model to the first.
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <future>

#include "single_instance.h"

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

using hearth::app::SingleInstance;

class SingleInstanceTest : public QObject {
    Q_OBJECT
private slots:
    void sameFolderSameName();
    void handsModelToTheRunningInstance();
    void emptyHandOffOnlyRaises();
    void noInstanceMeansNoHandOff();
    void secondListenerOnTheSameFolderFails();
    void staleSocketIsTakenOver();
    void garbageRequestIsRefused();
};

void SingleInstanceTest::sameFolderSameName() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("a"));
    QVERIFY(QDir(dir.path()).mkdir("b"));
    const QString a = dir.filePath("a");
    QCOMPARE(SingleInstance::serverName(a), SingleInstance::serverName(a + "/."));
    QCOMPARE(SingleInstance::serverName(a), SingleInstance::serverName(dir.filePath("b/../a")));
    QVERIFY(SingleInstance::serverName(a) != SingleInstance::serverName(dir.filePath("b")));
#ifdef Q_OS_UNIX
    QVERIFY(QFile::link(a, dir.filePath("link")));
    QCOMPARE(SingleInstance::serverName(dir.filePath("link")), SingleInstance::serverName(a));
#endif
}

void SingleInstanceTest::handsModelToTheRunningInstance() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY2(first.listen(), qPrintable(first.errorString()));
    QSignalSpy opened(&first, &SingleInstance::openRequested);

    // The later start blocks on its socket; it runs on another thread so this one can serve.
    SingleInstance second(dir.path());
    const QString relative = QStringLiteral("models/story.gguf");
    auto answered = std::async(std::launch::async, [&] { return second.handOff(relative); });
    QTRY_COMPARE(opened.count(), 1);
    QVERIFY(answered.get());
    QCOMPARE(opened.at(0).at(0).toString(), QFileInfo(relative).absoluteFilePath());
}

void SingleInstanceTest::emptyHandOffOnlyRaises() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY(first.listen());
    QSignalSpy opened(&first, &SingleInstance::openRequested);
    SingleInstance second(dir.path());
    auto answered = std::async(std::launch::async, [&] { return second.handOff(QString()); });
    QTRY_COMPARE(opened.count(), 1);
    QVERIFY(answered.get());
    QVERIFY(opened.at(0).at(0).toString().isEmpty());
}

void SingleInstanceTest::noInstanceMeansNoHandOff() {
    QTemporaryDir dir;
    SingleInstance lonely(dir.path());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!lonely.handOff(QStringLiteral("x.gguf")));
    QVERIFY2(timer.elapsed() < 2000, "a missing instance is noticed at once, not after a timeout");
    // Another folder's instance does not answer for this one.
    QTemporaryDir other;
    SingleInstance running(other.path());
    QVERIFY(running.listen());
    QVERIFY(!lonely.handOff(QStringLiteral("x.gguf")));
}

void SingleInstanceTest::secondListenerOnTheSameFolderFails() {
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    QVERIFY(first.listen());
    // A live instance answers the probe, so a second listener must not steal its socket.
    SingleInstance second(dir.path());
    QVERIFY(!second.listen());
    QSignalSpy opened(&first, &SingleInstance::openRequested);
    SingleInstance third(dir.path());
    auto answered = std::async(std::launch::async, [&] { return third.handOff("m.gguf"); });
    QTRY_COMPARE(opened.count(), 1);
    QVERIFY(answered.get());
}

void SingleInstanceTest::staleSocketIsTakenOver() {
#ifdef Q_OS_UNIX
    // What a kill -9 leaves: a bound socket file with no process listening behind it.
    QTemporaryDir dir;
    SingleInstance instance(dir.path());
    const QByteArray path = QDir(QDir::tempPath()).filePath(instance.name()).toLocal8Bit();
    QFile::remove(QString::fromLocal8Bit(path));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    QVERIFY(fd >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    QVERIFY(size_t(path.size()) < sizeof(addr.sun_path));
    std::memcpy(addr.sun_path, path.constData(), size_t(path.size()));
    QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ::close(fd);
    QVERIFY(QFileInfo::exists(QString::fromLocal8Bit(path)));

    QVERIFY2(instance.listen(), qPrintable(instance.errorString()));
    QSignalSpy opened(&instance, &SingleInstance::openRequested);
    SingleInstance later(dir.path());
    auto answered = std::async(std::launch::async, [&] { return later.handOff("m.gguf"); });
    QTRY_COMPARE(opened.count(), 1);
    QVERIFY(answered.get());
#else
    QSKIP("stale socket files exist on Unix only");
#endif
}

void SingleInstanceTest::garbageRequestIsRefused() {
    QTemporaryDir dir;
    SingleInstance instance(dir.path());
    QVERIFY(instance.listen());
    QSignalSpy opened(&instance, &SingleInstance::openRequested);
    auto reply = std::async(std::launch::async, [&] {
        QLocalSocket socket;
        socket.connectToServer(instance.name());
        if (!socket.waitForConnected(2000)) return QByteArray("no connection");
        socket.write("this is not json\n");
        socket.waitForBytesWritten(2000);
        while (!socket.canReadLine() && socket.waitForReadyRead(2000)) {
        }
        return socket.readLine().trimmed();
    });
    QTRY_VERIFY(reply.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready);
    QCOMPARE(reply.get(), QByteArray("error"));
    QCOMPARE(opened.count(), 0);
}

QTEST_GUILESS_MAIN(SingleInstanceTest)
#include "single_instance_test.moc"
