// Errors as values for the engine: no exception crosses the engine API.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hearth {

// A failure with a message a person can act on. Empty message means success.
class Status {
public:
    Status() = default;
    static Status ok() { return {}; }
    static Status error(std::string message) {
        Status s;
        s.message_ = std::move(message);
        s.failed_ = true;
        return s;
    }

    bool is_ok() const { return !failed_; }
    explicit operator bool() const { return !failed_; }
    const std::string& message() const { return message_; }

private:
    std::string message_;
    bool failed_ = false;
};

// Either a value or an error message (C++20 has no std::expected).
template <typename T>
class Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Status error) : v_(std::in_place_index<1>, std::move(error)) {
        assert(!std::get<1>(v_).is_ok() && "Result constructed from an ok Status");
    }
    static Result error(std::string message) { return Result(Status::error(std::move(message))); }

    bool is_ok() const { return v_.index() == 0; }
    explicit operator bool() const { return is_ok(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &std::get<0>(v_); }
    const T* operator->() const { return &std::get<0>(v_); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    // The error; only valid when !is_ok().
    const Status& status() const { return std::get<1>(v_); }
    const std::string& error_message() const { return std::get<1>(v_).message(); }

private:
    std::variant<T, Status> v_;
};

}  // namespace hearth
