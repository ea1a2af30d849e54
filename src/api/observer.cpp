// The observer registry: observers register from their own source files (static
// registrars) and the measurement calls every one around each point's timed runs.
#include "hetbench/observer.hpp"

namespace hetbench {

namespace {
std::vector<std::shared_ptr<PointObserver>>& observer_list() {
  static std::vector<std::shared_ptr<PointObserver>> all;
  return all;
}
}  // namespace

void register_observer(std::shared_ptr<PointObserver> o) { observer_list().push_back(std::move(o)); }

const std::vector<std::shared_ptr<PointObserver>>& observers() { return observer_list(); }

}  // namespace hetbench
