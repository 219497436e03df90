// Replaying a whole run. A CI job runs `cyclefix cycles` or `cyclefix --check`
// on every push, mostly over files that did not change; when the same binary
// runs the same command line in the same directory with the same configuration
// over files with the same bytes, its output cannot differ, so what the first
// run printed (stdout, stderr), wrote (--json FILE) and returned is recorded in
// the facts cache and given back instead of analysing again. Anything else
// (a changed byte, a new file, another flag) is a different key: a full run.
#pragma once

#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cyclefix {

struct RecordedRun {
  int exit_code = 0;
  std::string out, err;                                    // what went to stdout and stderr
  std::vector<std::pair<std::string, std::string>> files;  // (path as given, bytes) written besides
};

std::string encode_run(const RecordedRun& run);
std::optional<RecordedRun> decode_run(std::string_view bytes);  // nothing when malformed

// While alive, everything written to `stream` also goes to `copy`.
class StreamTee {
 public:
  StreamTee(std::ostream& stream, std::string& copy);
  ~StreamTee();
  StreamTee(const StreamTee&) = delete;
  StreamTee& operator=(const StreamTee&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    Buffer(std::streambuf* target, std::string& copy) : target_(target), copy_(copy) {}

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override { return target_->pubsync(); }

   private:
    std::streambuf* target_;
    std::string& copy_;
  };
  std::ostream& stream_;
  std::streambuf* original_;
  Buffer buffer_;
};

}  // namespace cyclefix
