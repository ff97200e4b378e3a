// Editable item models over one calibration table or one quantize table of the project.
#ifndef TPUC_UI_MODELS_TABLEMODELS_H
#define TPUC_UI_MODELS_TABLEMODELS_H

#include "ui/StudioContext.h"

#include <QAbstractTableModel>

namespace tpuc::ui {

/// Rows are the table's entries (`op_name threshold min max`). Edits go to the context as undoable
/// commands; the model follows the context's changes. Shows nothing once the table is gone.
class CaliTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { OpColumn, ThresholdColumn, MinColumn, MaxColumn, ColumnCount };
  CaliTableModel(StudioContext *context, qint64 tableId, QObject *parent = nullptr);

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex &index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  const project::CaliTable *table() const;
  StudioContext *m_context;
  qint64 m_tableId;
};

/// Rows are the table's entries (`op_name MODE`); the mode column is editable.
class QuantTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { OpColumn, ModeColumn, ColumnCount };
  QuantTableModel(StudioContext *context, qint64 tableId, QObject *parent = nullptr);

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex &index) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// The modes a quantize table accepts (TPU-MLIR's).
  static QStringList modes();

private:
  const project::QuantTable *table() const;
  StudioContext *m_context;
  qint64 m_tableId;
};

} // namespace tpuc::ui

#endif
