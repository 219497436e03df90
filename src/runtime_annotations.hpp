// Annotations that a library reads at run time. pydantic, attrs, msgspec,
// SQLAlchemy's `Mapped[...]`, `typing.NamedTuple`/`TypedDict`, and any class
// whose base, metaclass or decorator calls `typing.get_type_hints` evaluate the
// annotations of the classes they make (strings included, so neither quoting nor
// `from __future__ import annotations` helps). A name used only in such an
// annotation must stay a module-level import: under `if TYPE_CHECKING:` the
// library's evaluation raises NameError. ruff's flake8-type-checking settings
// of the same names say the same for one file; here the bases are followed
// across files.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "facts.hpp"

namespace cyclefix {

struct Analysis;
class CalleeResolver;
struct BodyRef;

// What the user adds to the defaults ([tool.cyclefix] keys of the same names):
// full dotted names, as ruff's `runtime-evaluated-base-classes` and
// `runtime-evaluated-decorators`. A decorator may also be given as written
// (`app.get` matches `@app.get("/")`).
struct RuntimeAnnotationOptions {
  std::vector<std::string> base_classes;
  std::vector<std::string> decorators;
};

// The defaults, always in force.
const std::vector<std::string_view>& default_runtime_base_classes();
const std::vector<std::string_view>& default_runtime_decorators();

class RuntimeAnnotations {
 public:
  RuntimeAnnotations(const Analysis& a, const CalleeResolver& resolver, const RuntimeAnnotationOptions& options);

  // Why annotation use `u` of `file` is read at run time (a sentence about the
  // class or function it annotates), or null when nothing reads it.
  const std::string* reason(int file, const NameUse& u) const;

  // The dotted name `dotted`, as written in `file`, with its first component
  // replaced by what the file's module-level imports bind it to
  // (`BaseModel` after `from pydantic import BaseModel` is `pydantic.BaseModel`).
  std::string full_name(int file, std::string_view dotted) const;

 private:
  const std::string* class_reason(int file, const std::string& qualified, int depth);
  std::string decorator_reason(int file, int in_function, const std::string& decorator);
  bool body_reads(const BodyRef& b, int depth);
  std::string where(int file, int line) const;

  const Analysis& a_;
  const CalleeResolver& resolver_;
  std::unordered_set<std::string> bases_, decorators_;
  // [file]: class qualified name -> reason ("" while being decided, or when none).
  std::vector<std::map<std::string, std::string>> classes_;
  // [file]: function index -> reason, for functions whose signature is read.
  std::vector<std::map<int, std::string>> functions_;
  std::map<std::pair<int, int>, char> reads_;  // body -> 0 deciding, 1 no, 2 yes
};

}  // namespace cyclefix
