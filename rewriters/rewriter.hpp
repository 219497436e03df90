// The rewriters: each turns one cut of the plan (a module-level import statement
// to defer) into part of one atomic change to its file. A rewriter returns
// requests and byte edits; it never splices shared additions itself: the driver
// (src/rewrite.cpp) places the local imports at the top of function bodies and
// merges every change's TYPE_CHECKING entries into one block per file.
//
// The table (rewriters()) lists them in the order they run; a later rewriter
// may decorate what an earlier one requested (the cycle note adds a comment to
// each local import the move requested).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "edit_set.hpp"

namespace cyclefix {

struct RewriteOptions {
  bool note = true;       // a comment naming the loop on each moved import
  bool noqa = false;      // append suppressions for linters that hoist imports (PLC0415)
  int target_minor = 9;   // Python 3.<minor>: annotations are evaluated eagerly below 3.14
  // Longest line a written import may have before its names are wrapped in
  // parentheses ([tool.cyclefix], ruff's or black's `line-length`; 0: never).
  std::size_t line_length = 88;
};

// An import to place at the top of one function body.
struct LocalImport {
  int function = -1;                  // index into the file's facts.functions
  std::vector<std::string> names;     // names it binds
  std::string statement;              // the import as written at column 0 (continuation lines as in the source)
  std::vector<std::string> comments;  // whole-line comments above it ("# ..."), in order
  std::string trailing;               // after it on its line, e.g. "  # why"
};

// Everything one cut changes in its file: applied whole or not at all.
struct AtomicChange {
  int cut = -1;                          // index into CutPlan::candidates
  std::vector<Edit> edits;               // removal of the statement, quoted annotations
  std::vector<LocalImport> local_imports;
  std::vector<std::string> type_checking;  // import statements for the file's `if TYPE_CHECKING:` block
  int quoted_annotations = 0;            // annotations the change puts in quotes
  std::string error;                     // set: the change cannot be made, and why
};

struct RewriteInput {
  const Analysis& analysis;
  const CycleReport& cycles;
  const CandidateStatement& cut;
  const FileAnalysis& file;
  std::string_view source;  // the file's bytes, as analysed
  const RewriteOptions& options;
};

using Rewriter = void (*)(const RewriteInput&, AtomicChange&);

struct RewriterEntry {
  const char* name;
  Rewriter run;
};

// Every rewriter, in the order they run.
const std::vector<RewriterEntry>& rewriters();

// Defined one per file in rewriters/. Each acts on the cuts of its strategy
// (CandidateStatement::strategy) and leaves the others alone.
void bypass_reexport(const RewriteInput& in, AtomicChange& change);
void late_binding(const RewriteInput& in, AtomicChange& change);
void lazy_import(const RewriteInput& in, AtomicChange& change);
void move_below(const RewriteInput& in, AtomicChange& change);
void move_into_functions(const RewriteInput& in, AtomicChange& change);
void type_checking_entries(const RewriteInput& in, AtomicChange& change);
void cycle_note(const RewriteInput& in, AtomicChange& change);
void suppress_hoisting(const RewriteInput& in, AtomicChange& change);

// Lines longer than this get the cycle note in its compact form (black's line length).
inline constexpr std::size_t kFullNoteWidth = 88;

// The cycle note of the cut: `label` then "import cycle a -> b -> a", the loop
// rotated to start at the cut's module; the compact form (shared package
// prefix dropped, dots as '/') when the full one is longer than `width`.
std::string cycle_note_text(const RewriteInput& in, std::string_view label, std::size_t width);
// The same for a given loop (first == last, starting where the note sits);
// `more`: other loops the change breaks, said as "(and N more loops)".
std::string loop_note(const Analysis& a, const std::vector<ModuleId>& loop, std::string_view label,
                      std::size_t width, std::size_t more = 0);

// A module an extraction creates (Strategy::Extract).
struct CreatedFile {
  std::string module;           // dotted
  std::filesystem::path path;
  std::string display;
  std::string text;             // its bytes
  std::vector<int> cuts;        // the Extract cuts it serves (indexes into CutPlan::candidates)
};

// Extraction (not a rewriter-table entry: it changes the defining module's
// file, not the cut's; src/rewrite.cpp calls it once per defining file, for
// all the Extract cuts out of it): the edits that take the moved statements
// out of `source` (the defining file's bytes) and import the names back from
// the new module, and the new module's text. False, with *error, when the
// cuts disagree on the new module.
bool extract_module(const Analysis& a, const CycleReport& cycles, const CutPlan& plan, const std::vector<int>& cuts,
                    std::string_view source, std::vector<Edit>& edits, CreatedFile& created, std::string* error);

// --prefer-lazy (not a cut: no rewriter-table entry; src/rewrite.cpp calls it per
// file): the edits that remove the hoists' local imports (and the TYPE_CHECKING
// imports they make redundant) and write their module-level `lazy` statements.
// False, with *error, when they cannot be placed.
bool hoist_lazy(const Analysis& a, const FileAnalysis& fa, std::string_view source,
                const std::vector<const LazyHoist*>& hoists, const RewriteOptions& options, std::vector<Edit>& edits,
                std::string* error);

// Where a written import statement goes: the column it starts at and the
// longest line allowed (0: one line whatever its length).
struct ImportLayout {
  std::size_t column = 0;
  std::size_t width = 0;
};

// `head` ("from m import ") and its names, on one line when it fits the
// layout, else with the names in parentheses, as many per line as fit, the
// continuation lines aligned after the parenthesis (or, when the head leaves
// no room, indented by four spaces). Lines are joined by '\n', continuation
// lines counted from column 0: the caller indents them like the first.
std::string wrap_import(std::string_view head, const std::vector<std::string>& names, ImportLayout layout);

// Shared by the rewriters: the edit that takes the names `moved` out of `st`:
// the statement reduced to the other names (wrapped at `width`), or (none
// left) removed with its own comments and one blank line when it sat between
// two, or its `;` part.
Edit statement_removal(std::string_view s, const ImportStatement& st, const std::vector<std::string>& moved,
                       std::size_t width = 0);

// Shared by the rewriters: the statement `st` reduced to the aliases that bind
// one of `names` (the original text, verbatim, when it keeps all of them),
// wrapped to `layout` when written anew.
std::string import_subset(const ImportStatement& st, const std::vector<std::string>& names, std::string_view source,
                          ImportLayout layout = {});

// What follows `st` on its last line when that is a comment ("  # why", the
// spaces before it kept, the newline not); empty when there is none or
// another statement shares the line.
std::string_view trailing_comment(std::string_view s, const ImportStatement& st);

// A comment that tells a linter or type checker to skip its line
// (`# type: ignore[...]`, `# noqa: ...`, `# pylint: disable=...`,
// `# pyright: ignore`, `# isort: skip`, `# nosec`), possibly followed by more.
bool is_pragma_comment(std::string_view comment);

// The comments inside an import statement's text that belong to one of the
// aliases binding `names`: a comment sits on the line of the aliases it
// follows; a comment on a line of its own belongs to the next alias. (An
// import statement holds no strings, so every '#' starts a comment.)
std::vector<std::string> alias_comments(std::string_view text, const std::vector<std::string>& names);

}  // namespace cyclefix
