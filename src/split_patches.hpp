// Bulk migration: the rewrite of a run cut into several patches, one per
// top-level package, CODEOWNERS owner or cyclic component, each with a
// markdown summary for the pull request that carries it. Every changed file
// goes into exactly one patch (a file's edits cannot be split without making
// the patches depend on each other), so each patch applies alone to a clean
// tree, in any order, and all of them together are the unsplit diff.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "codeowners.hpp"
#include "cut_plan.hpp"
#include "cycle_report.hpp"
#include "rewrite.hpp"

namespace cyclefix {

enum class SplitBy { Package, Owner, Cycle };
std::optional<SplitBy> parse_split_by(std::string_view s);  // "package", "owner", "cycle"
std::string_view to_string(SplitBy by);

struct PatchGroup {
  std::string name;  // the package, the owners ("@a @b"), "unowned", or the cycle's first module
  std::string stem;  // file name without extension: unique, [A-Za-z0-9._+-] only, never "index"
  std::vector<std::size_t> files;  // indexes into RewriteResult::files, in its order
  std::vector<int> cuts;           // candidates applied in those files, sorted
  // New modules (indexes into RewriteResult::created) this patch creates: an
  // extraction's goes with the importer of its first cut, and the defining
  // file's change goes to that importer's patch too.
  std::vector<std::size_t> created;
  std::vector<std::size_t> components;  // indexes into CycleReport::components its cuts break loops of
  // Files some of whose cuts belong to another group: the whole file is here
  // (the group of its first cut), and this says which groups were passed over.
  std::vector<std::string> notes;
};

struct PatchSplit {
  SplitBy by = SplitBy::Package;
  std::vector<PatchGroup> groups;  // sorted by name
  std::string codeowners;          // the CODEOWNERS file used (Owner only)
};

// Groups the changed files. Package: the first component of the file's module.
// Owner: the owners of the file in `owners` (nullptr or no match: "unowned").
// Cycle: the cyclic component holding the cut's importer.
PatchSplit split_patches(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                         const RewriteResult& rw, SplitBy by, const CodeOwners* owners);

// A name made safe for a file name: characters other than [A-Za-z0-9._+-]
// become '_', a leading '@' or '.' is dropped; "group" when nothing is left.
std::string file_stem(std::string_view name);

// The group's unified diff: the file diffs of the unsplit diff, in its order.
std::string group_patch(const Analysis& a, const RewriteResult& rw, const PatchGroup& g);
// The pull-request description of group `g`: cycles it breaks (whether other
// patches are needed too), the loops, why each cut was chosen, and the
// statements of those cycles that cannot be deferred.
std::string group_summary(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                          const RewriteResult& rw, const PatchSplit& split, std::size_t g);
// DIR/index.md: one line per patch.
std::string split_index(const Analysis& a, const CycleReport& cycles, const CutPlan& plan,
                        const RewriteResult& rw, const PatchSplit& split);

// `rewrite.patches` of the JSON report: [{group, diff, summary, files: [path], cuts}].
nlohmann::json split_json(const std::filesystem::path& dir, const Analysis& a, const RewriteResult& rw,
                          const PatchSplit& split);

// Writes DIR/<stem>.diff and DIR/<stem>.md per group and DIR/index.md,
// creating DIR; files written are appended to `written`. False with `*err`
// naming the file that could not be written.
bool write_split_patches(const std::filesystem::path& dir, const Analysis& a, const CycleReport& cycles,
                         const CutPlan& plan, const RewriteResult& rw, const PatchSplit& split,
                         std::vector<std::string>* written, std::string* err);

}  // namespace cyclefix
