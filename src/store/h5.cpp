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
  // HDF5's own texts can hold newlines (e.g. a ctime() stamp in write errors): one line each.
  for (char& c : d)
    if (c == '\n' || c == '\r') c = ' ';
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

void silence_errors() {
  // HDF5 1.10 closes whatever is still open at exit; a file whose close failed (ENOSPC while
  // flushing) is left half-closed and that cleanup then crashes (H5F__close_cb, SIGSEGV) after
  // the clear error was printed. Every file here is closed (or abandoned) by its RAII owner, so
  // skip HDF5's atexit cleanup. H5dont_atexit only works before the library's first use: this
  // is the first HDF5 call of every reader and writer.
  static const bool no_atexit = [] {
    H5dont_atexit();
    return true;
  }();
  (void)no_atexit;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace nq::store::h5
