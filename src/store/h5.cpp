#include "store/h5.h"
#include <vector>
#include "store/errors.h"

namespace nq::store::h5 {

namespace {
herr_t collect(unsigned /*n*/, const H5E_error2_t* e, void* out) {
  auto& v = *static_cast<std::vector<std::string>*>(out);
  std::string d = e->desc ? e->desc : "";
  if (d.empty()) {
    char buf[256] = {};
    if (H5Eget_msg(e->min_num, nullptr, buf, sizeof buf) > 0) d = buf;
  }
  if (!d.empty() && (v.empty() || v.back() != d)) v.push_back(std::move(d));
  return 0;
}
}  // namespace

void raise(const Site& site, std::string_view what) {
  std::vector<std::string> stack;   // outermost (API call) first
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &stack);
  H5Eclear2(H5E_DEFAULT);
  std::string msg = site.op + ": " + site.path + ": " + std::string(what);
  if (!stack.empty()) {
    msg += ": " + stack.front();
    if (stack.size() > 1) msg += " (" + stack.back() + ")";
  }
  if (site.kind == Failure::write) throw WriteError(msg);
  throw NotAResultFile(msg);
}

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace nq::store::h5
