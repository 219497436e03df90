// The rewrite stage: turns a cut plan into new file contents. Runs the
// rewriters (rewriters/) over each cut to get one atomic change per cut,
// places their local imports at the top of function bodies, merges the
// TYPE_CHECKING entries of a file into one block, applies the edits of a file
// in one pass and re-parses the result. Writes nothing: apply.hpp does that.
#pragma once

#include <string>
#include <vector>

#include "analysis.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "rewriter.hpp"

namespace cyclefix {

struct FileRewrite {
  int file = -1;                 // index into Analysis::files
  std::string before, after;     // bytes
  std::vector<int> cuts;         // candidates applied in this file
  std::size_t local_imports = 0;
  std::size_t functions = 0;     // function bodies that gained an import
  std::size_t type_checking_entries = 0;
  std::size_t quoted_annotations = 0;
  std::size_t lazy_hoists = 0;      // --prefer-lazy: module-level lazy statements written
  std::size_t hoisted_imports = 0;  // ... and the local imports they replace
  // Extract cuts whose definitions moved out of this file to a new module
  // (RewriteResult::created); the cuts themselves are in their importers' files.
  std::vector<int> extracted_for;
};

struct RewriteProblem {
  std::string file;
  int line = 0;
  std::string message;
};

struct RewriteResult {
  std::vector<FileRewrite> files;        // changed files, by display path
  std::vector<CreatedFile> created;      // new modules (extractions), by display path
  std::vector<RewriteProblem> problems;  // cuts or files left unchanged, and why
  std::size_t cuts_applied = 0;
};

// An extraction changes three files (the importer, the defining module, the
// new module); when the defining module cannot be changed, its cuts are
// reported and the importers are left alone.
// Reads each file to change from disk (refusing one whose bytes no longer match
// what was analysed), or takes its bytes from `sources` when given (parallel to
// a.files; for in-memory use).
RewriteResult rewrite(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                      const RewriteOptions& options, const std::vector<std::string>* sources = nullptr);

// The analysis as it would be after the rewrite: the changed files' facts
// collected again from their new text and the graph rebuilt (on `jobs`
// threads, 0: all cores). The files' facts, resolved imports and import-time
// reachability move out of `a`, which keeps its sources and module index and,
// with `keep_for_reports`, its graph and a copy of the files' import
// statements (what split patches, the HTML report, --check's findings and the
// CI formats still read).
Analysis analysis_after(Analysis& a, const RewriteResult& r, unsigned jobs = 1, bool keep_for_reports = true);

}  // namespace cyclefix
