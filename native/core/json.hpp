// A small, bounded JSON reader and writer for the states the Python engine writes with `to_dict`.
//
// The reader takes untrusted text: it limits the text's size and the nesting depth, accepts only
// what RFC 8259 allows, and reports the first fault as a `std::invalid_argument` (ValueError in
// Python). Numbers are kept as int64 when they are integers that fit, else as double.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace city_envs::native::json {

class Value {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0.0;
  std::string text;
  std::vector<Value> items;                            // an array's values
  std::vector<std::pair<std::string, Value>> members;  // an object's keys and values, in order

  bool is_null() const { return kind == Kind::kNull; }

  // The member `key` of an object; a missing key or a non-object is an error naming `key`.
  const Value& at(const std::string& key) const {
    if (kind != Kind::kObject) throw std::invalid_argument("state: an object was expected around '" + key + "'");
    for (const auto& member : members)
      if (member.first == key) return member.second;
    throw std::invalid_argument("state: missing key '" + key + "'");
  }
  bool has(const std::string& key) const {
    if (kind != Kind::kObject) return false;
    for (const auto& member : members)
      if (member.first == key) return true;
    return false;
  }
  // This value as an int in [low, high], else an error naming `what`.
  int64_t as_int(const char* what, int64_t low, int64_t high) const {
    if (kind != Kind::kInt || integer < low || integer > high)
      throw std::invalid_argument(std::string("state: ") + what + " must be an integer in " + std::to_string(low) +
                                  ".." + std::to_string(high));
    return integer;
  }
  bool as_bool(const char* what) const {
    if (kind != Kind::kBool) throw std::invalid_argument(std::string("state: ") + what + " must be true or false");
    return boolean;
  }
  const std::string& as_string(const char* what) const {
    if (kind != Kind::kString) throw std::invalid_argument(std::string("state: ") + what + " must be a string");
    return text;
  }
  // This value as an array of at most `max_size` values, else an error naming `what`.
  const std::vector<Value>& as_array(const char* what, size_t max_size) const {
    if (kind != Kind::kArray || items.size() > max_size)
      throw std::invalid_argument(std::string("state: ") + what + " must be a list of at most " +
                                  std::to_string(max_size) + " values");
    return items;
  }
};

class Reader {
 public:
  static constexpr size_t kMaxText = 1U << 24;  // 16 MiB
  static constexpr int kMaxDepth = 64;

  static Value parse(const std::string& text) {
    if (text.size() > kMaxText) throw std::invalid_argument("state: JSON text over 16 MiB");
    Reader reader(text);
    Value value = reader.value(0);
    reader.space();
    if (reader.pos_ != text.size()) reader.fail("trailing characters");
    return value;
  }

 private:
  explicit Reader(const std::string& text) : text_(text) {}

  [[noreturn]] void fail(const char* what) const {
    throw std::invalid_argument(std::string("state: bad JSON at offset ") + std::to_string(pos_) + ": " + what);
  }
  void space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool take(char c) {
    space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect_word(const char* word) {
    for (const char* p = word; *p != '\0'; ++p, ++pos_)
      if (pos_ >= text_.size() || text_[pos_] != *p) fail("unknown literal");
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    space();
    if (pos_ >= text_.size()) fail("unexpected end");
    Value out;
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      out.kind = Value::Kind::kObject;
      if (take('}')) return out;
      do {
        space();
        if (pos_ >= text_.size() || text_[pos_] != '"') fail("a key was expected");
        std::string key = string();
        if (!take(':')) fail("':' was expected");
        out.members.emplace_back(std::move(key), value(depth + 1));
      } while (take(','));
      if (!take('}')) fail("'}' was expected");
    } else if (c == '[') {
      ++pos_;
      out.kind = Value::Kind::kArray;
      if (take(']')) return out;
      do {
        out.items.push_back(value(depth + 1));
      } while (take(','));
      if (!take(']')) fail("']' was expected");
    } else if (c == '"') {
      out.kind = Value::Kind::kString;
      out.text = string();
    } else if (c == 't') {
      expect_word("true");
      out.kind = Value::Kind::kBool;
      out.boolean = true;
    } else if (c == 'f') {
      expect_word("false");
      out.kind = Value::Kind::kBool;
    } else if (c == 'n') {
      expect_word("null");
    } else {
      number(out);
    }
    return out;
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad \\u escape");
          }
          if (code >= 0x80) fail("only ASCII \\u escapes are read");  // state strings are ASCII names
          out.push_back(static_cast<char>(code));
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  void number(Value& out) {
    const size_t start = pos_;
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == digits) fail("a value was expected");
    if (text_[digits] == '0' && pos_ - digits > 1) fail("leading zero");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      const size_t fraction = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      if (pos_ == fraction) fail("digits were expected after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      const size_t exponent = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      if (pos_ == exponent) fail("digits were expected in the exponent");
    }
    const std::string token = text_.substr(start, pos_ - start);
    if (integral) {
      if (token.size() > 20) fail("integer out of range");
      errno = 0;
      char* end = nullptr;
      const long long parsed = std::strtoll(token.c_str(), &end, 10);
      if (errno == ERANGE || end != token.c_str() + token.size()) fail("integer out of range");
      out.kind = Value::Kind::kInt;
      out.integer = parsed;
    } else {
      out.kind = Value::Kind::kDouble;
      out.number = std::strtod(token.c_str(), nullptr);
      if (!std::isfinite(out.number)) fail("number out of range");
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

// Writes JSON text; the caller keeps keys and values in the Python engine's order.
class Writer {
 public:
  Writer& begin_object() { return open('{'); }
  Writer& end_object() { return close('}'); }
  Writer& begin_array() { return open('['); }
  Writer& end_array() { return close(']'); }
  Writer& key(const char* name) {
    comma();
    quote(name);
    out_.push_back(':');
    fresh_ = true;
    return *this;
  }
  Writer& value(int64_t v) {
    comma();
    out_ += std::to_string(v);
    return *this;
  }
  Writer& value(int v) { return value(static_cast<int64_t>(v)); }
  Writer& value(bool v) {
    comma();
    out_ += v ? "true" : "false";
    return *this;
  }
  Writer& value(double v) {
    comma();
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    out_ += buffer;
    return *this;
  }
  Writer& value(const char* v) {
    comma();
    quote(v);
    return *this;
  }
  Writer& value(const std::string& v) { return value(v.c_str()); }
  Writer& null() {
    comma();
    out_ += "null";
    return *this;
  }
  template <class Sequence>
  Writer& array(const Sequence& values) {
    begin_array();
    for (const auto& v : values) value(static_cast<int64_t>(v));
    return end_array();
  }
  const std::string& text() const { return out_; }

 private:
  Writer& open(char c) {
    comma();
    out_.push_back(c);
    fresh_ = true;
    return *this;
  }
  Writer& close(char c) {
    out_.push_back(c);
    fresh_ = false;
    return *this;
  }
  void comma() {
    if (!fresh_) out_.push_back(',');
    fresh_ = false;
  }
  void quote(const char* s) {
    out_.push_back('"');
    for (const char* p = s; *p != '\0'; ++p) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"' || c == '\\') {
        out_.push_back('\\');
        out_.push_back(static_cast<char>(c));
      } else if (c < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
        out_ += buffer;
      } else {
        out_.push_back(static_cast<char>(c));
      }
    }
    out_.push_back('"');
  }

  std::string out_;
  bool fresh_ = true;
};

}  // namespace city_envs::native::json
