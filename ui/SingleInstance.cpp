// The single-instance channel: one JSON line {"open": path} from the later studio, "ok" back.
#include "ui/SingleInstance.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>

namespace tpuc::ui {

SingleInstance::SingleInstance(QObject *parent) : QObject(parent), m_server(new QLocalServer(this)) {
  m_server->setSocketOptions(QLocalServer::UserAccessOption);
  connect(m_server, &QLocalServer::newConnection, this, [this] {
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
      connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
      connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
        if (!socket->canReadLine())
          return;
        const QJsonObject message = QJsonDocument::fromJson(socket->readLine()).object();
        if (!message.contains(QStringLiteral("open"))) {
          socket->write("error\n");
          socket->disconnectFromServer();
          return;
        }
        socket->write("ok\n");
        socket->flush();
        // After the answer: opening may ask the user first (save changes?), the later studio need not wait.
        const QString path = message.value(QStringLiteral("open")).toString();
        QMetaObject::invokeMethod(
            this, [this, path] { Q_EMIT openRequested(path); }, Qt::QueuedConnection);
      });
    }
  });
}

QString SingleInstance::serverName() {
  const QByteArray key =
      QCryptographicHash::hash(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation).toUtf8(),
                               QCryptographicHash::Sha1)
          .toHex()
          .left(12);
  QString user = qEnvironmentVariable("USER");
  if (user.isEmpty())
    user = qEnvironmentVariable("USERNAME");
  return QStringLiteral("tpu-studio-%1-%2").arg(user, QString::fromLatin1(key));
}

bool SingleInstance::forward(const QString &path, int timeoutMs) {
  QLocalSocket socket;
  socket.connectToServer(serverName());
  if (!socket.waitForConnected(timeoutMs))
    return false;
  socket.write(QJsonDocument(QJsonObject{{QStringLiteral("open"), path}}).toJson(QJsonDocument::Compact) +
               '\n');
  if (!socket.waitForBytesWritten(timeoutMs))
    return false;
  while (!socket.canReadLine())
    if (!socket.waitForReadyRead(timeoutMs))
      return false;
  return socket.readLine().trimmed() == "ok";
}

bool SingleInstance::listen() {
  if (m_server->listen(serverName()))
    return true;
  // A socket nobody listens on is a crashed studio's: replace it.
  if (m_server->serverError() != QAbstractSocket::AddressInUseError)
    return false;
  QLocalSocket probe;
  probe.connectToServer(serverName());
  if (!probe.waitForConnected(1000)) {
    QLocalServer::removeServer(serverName());
    return m_server->listen(serverName());
  }
  return false;
}

} // namespace tpuc::ui
