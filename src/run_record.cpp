#include "run_record.hpp"

#include <cstdint>
#include <cstring>
#include <exception>

namespace cyclefix {

namespace {

void put(std::string& out, std::string_view s) {
  const std::uint64_t n = s.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += s;
}

bool get(std::string_view& in, std::string& s) {
  std::uint64_t n;
  if (in.size() < sizeof n) return false;
  std::memcpy(&n, in.data(), sizeof n);
  in.remove_prefix(sizeof n);
  if (n > in.size()) return false;
  s.assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

}  // namespace

std::string encode_run(const RecordedRun& run) {
  std::string out;
  put(out, std::to_string(run.exit_code));
  put(out, run.out);
  put(out, run.err);
  put(out, std::to_string(run.files.size()));
  for (const auto& [path, bytes] : run.files) {
    put(out, path);
    put(out, bytes);
  }
  return out;
}

std::optional<RecordedRun> decode_run(std::string_view in) {
  RecordedRun run;
  std::string code, count;
  if (!get(in, code) || !get(in, run.out) || !get(in, run.err) || !get(in, count)) return std::nullopt;
  try {
    run.exit_code = std::stoi(code);
    std::size_t n = std::stoul(count);
    for (std::size_t i = 0; i < n; ++i) {
      std::string path, bytes;
      if (!get(in, path) || !get(in, bytes)) return std::nullopt;
      run.files.emplace_back(std::move(path), std::move(bytes));
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!in.empty()) return std::nullopt;
  return run;
}

StreamTee::StreamTee(std::ostream& stream, std::string& copy)
    : stream_(stream), original_(stream.rdbuf()), buffer_(original_, copy) {
  stream_.rdbuf(&buffer_);
}

StreamTee::~StreamTee() { stream_.rdbuf(original_); }

StreamTee::Buffer::int_type StreamTee::Buffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  copy_ += traits_type::to_char_type(c);
  return target_->sputc(traits_type::to_char_type(c));
}

std::streamsize StreamTee::Buffer::xsputn(const char* s, std::streamsize n) {
  copy_.append(s, static_cast<std::size_t>(n));
  return target_->sputn(s, n);
}

}  // namespace cyclefix
