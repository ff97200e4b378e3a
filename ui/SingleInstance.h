// One studio per user: a second `tpu-studio FILE` hands FILE to the running studio over a local socket and
// exits (tpu-studio --new-instance opts out).
#ifndef TPUC_UI_SINGLEINSTANCE_H
#define TPUC_UI_SINGLEINSTANCE_H

#include <QObject>

class QLocalServer;

namespace tpuc::ui {

class SingleInstance : public QObject {
  Q_OBJECT
public:
  explicit SingleInstance(QObject *parent = nullptr);

  /// The socket's name: per user and per settings folder (so a test with its own XDG_CONFIG_HOME, or
  /// QStandardPaths' test mode, has a channel of its own).
  static QString serverName();
  /// Hands `path` (absolute; empty: only bring the window forward) to a running studio. True when one
  /// answered within `timeoutMs`; false when none runs (or it did not answer).
  static bool forward(const QString &path, int timeoutMs = 5000);
  /// Starts listening for later studios; a socket left by a studio that crashed is replaced. False when
  /// another studio listens already or the socket cannot be made.
  bool listen();

Q_SIGNALS:
  /// A later studio asked to open `path` (empty: just to bring the window forward).
  void openRequested(const QString &path);

private:
  QLocalServer *m_server;
};

} // namespace tpuc::ui

#endif
