//===- CheckedInt.h - 64-bit arithmetic that remembers overflow -----------===//
//
// Shapes, pads, strides and counts come from files Kiln does not trust. Any
// arithmetic on them is written with CheckedInt: an overflow anywhere in an
// expression makes the result invalid instead of wrapping (undefined in C++),
// and the caller checks once and names the node or tensor in its error.
//
#ifndef KILN_SUPPORT_CHECKEDINT_H
#define KILN_SUPPORT_CHECKEDINT_H

#include <cstdint>

namespace kiln {

class CheckedInt {
public:
  constexpr CheckedInt(int64_t v = 0) : v(v) {}
  static constexpr CheckedInt invalid() {
    CheckedInt c;
    c.valid = false;
    return c;
  }
  /// False once any operation leading here overflowed or divided by zero.
  constexpr bool ok() const { return valid; }
  /// The value; meaningful only when ok().
  constexpr int64_t value() const { return v; }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.valid || !b.valid || __builtin_add_overflow(a.v, b.v, &r))
      return invalid();
    return r;
  }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.valid || !b.valid || __builtin_sub_overflow(a.v, b.v, &r))
      return invalid();
    return r;
  }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.valid || !b.valid || __builtin_mul_overflow(a.v, b.v, &r))
      return invalid();
    return r;
  }
  /// Truncating division, as C++'s.
  friend CheckedInt operator/(CheckedInt a, CheckedInt b) {
    if (!a.valid || !b.valid || b.v == 0 || (a.v == INT64_MIN && b.v == -1))
      return invalid();
    return a.v / b.v;
  }
  /// Division rounding toward negative infinity.
  friend CheckedInt floorDiv(CheckedInt a, CheckedInt b) {
    CheckedInt q = a / b;
    if (q.valid && a.v % b.v != 0 && ((a.v < 0) != (b.v < 0)))
      q.v -= 1; // cannot overflow: |q| < |a| here
    return q;
  }
  /// Division rounding toward positive infinity.
  friend CheckedInt ceilDiv(CheckedInt a, CheckedInt b) {
    CheckedInt q = a / b;
    if (q.valid && a.v % b.v != 0 && ((a.v < 0) == (b.v < 0)))
      q.v += 1; // cannot overflow: |q| < |a| here
    return q;
  }

private:
  int64_t v;
  bool valid = true;
};

} // namespace kiln

#endif
