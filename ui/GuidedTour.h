// The guided tour: an overlay over the main window that points at one panel after another with a short
// callout (what it is for), Back / Next / Close.
#ifndef TPUC_UI_GUIDEDTOUR_H
#define TPUC_UI_GUIDEDTOUR_H

#include <QPointer>
#include <QWidget>

#include <functional>
#include <vector>

class QLabel;
class QPushButton;

namespace tpuc::ui {

/// One callout: the widget it points at (found when the step is shown; a hidden dock is shown and raised)
/// and what it says.
struct TourStep {
  std::function<QWidget *()> target;
  QString title;
  QString text;
};

class GuidedTour : public QWidget {
  Q_OBJECT
public:
  /// Covers `window` (its child) and shows the first step.
  GuidedTour(QWidget *window, std::vector<TourStep> steps);

  int currentStep() const { return m_step; }
  int stepCount() const { return static_cast<int>(m_steps.size()); }
  /// The rectangle (in the window) of the current step's target; empty when it has none.
  QRect highlighted() const { return m_hole; }
  QString currentTitle() const;
  void next();
  void back();

Q_SIGNALS:
  void stepShown(int step);

protected:
  bool eventFilter(QObject *watched, QEvent *event) override;
  void paintEvent(QPaintEvent *event) override;
  void keyPressEvent(QKeyEvent *event) override;

private:
  void showStep(int step);
  void place();
  std::vector<TourStep> m_steps;
  int m_step = -1;
  QRect m_hole;
  QWidget *m_callout;
  QLabel *m_title;
  QLabel *m_text;
  QLabel *m_count;
  QPushButton *m_back;
  QPushButton *m_next;
};

} // namespace tpuc::ui

#endif
