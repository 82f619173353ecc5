// Errors as values for the engine: no exception crosses the engine API.
#pragma once

#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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
    // An ok Status carries no value: that is a programming error, and in every build type it
    // becomes a failed Result with a message saying so (never a Result that is neither a value
    // nor an explained error).
    Result(Status error)
        : v_(std::in_place_index<1>,
             error.is_ok() ? Status::error("internal error: a result was made from a success "
                                           "status without a value")
                           : std::move(error)) {}
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

// Call only inside a catch block: the exception in flight as an error naming `what`. The engine's
// public entry points end in `catch (...) { return exception_status("..."); }` (a function-try-
// block or guarded() below) so that an allocation failure (a file claiming more than memory
// holds) or a library exception never crosses the API as std::terminate.
inline Status exception_status(std::string_view what) {
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return Status::error(std::string(what) + ": out of memory");
    } catch (const std::length_error&) {
        return Status::error(std::string(what) + ": out of memory (size too large)");
    } catch (const std::exception& e) {
        return Status::error(std::string(what) + ": internal error: " + e.what());
    } catch (...) {
        return Status::error(std::string(what) + ": internal error");
    }
}

// Runs f (returning a Status or a Result<T>) and turns any exception escaping it into an error
// naming `what`.
template <typename F>
auto guarded(std::string_view what, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (...) {
        return exception_status(what);
    }
}

}  // namespace hearth
