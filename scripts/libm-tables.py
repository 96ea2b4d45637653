#!/usr/bin/env python3
"""Prints the constant tables of runtime/src/kiln_libm.c.

Everything is computed here from first principles with Python integers and
decimal arithmetic (no math library involved): pi by Machin's formula, the
bits of 2/pi for the large-argument reduction of sin/cos, splits of pi/2 and
ln 2, and erf with the Gaussian at the centres k/8 used by erf's Taylor steps.
Run: python3 scripts/libm-tables.py > /tmp/tables.c and paste.
"""
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 160
BITS = 1400


def atan_inv(n, bits):
    """atan(1/n) * 2^bits as an integer (alternating series)."""
    one = 1 << bits
    total, term, k, sign = 0, one // n, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k += 2
        sign = -sign
    return total


PI = Fraction(16 * atan_inv(5, BITS) - 4 * atan_inv(239, BITS), 1 << BITS)


def to_double(x):
    """Nearest double of a Fraction (via its decimal expansion)."""
    return float(Decimal(x.numerator) / Decimal(x.denominator))


def split(x, bits):
    """x rounded down to `bits` significant bits, as a Fraction."""
    e = 0
    while x >= 2:
        x /= 2
        e += 1
    while x < 1:
        x *= 2
        e -= 1
    m = int(x * (1 << (bits - 1)))
    return Fraction(m, 1 << (bits - 1)) * Fraction(2) ** e


def hexd(x):
    return float.hex(x)


# 2/pi as 32-bit words, bit 1 (value 1/2) first.
two_over_pi = 2 / PI
words = int(two_over_pi * (1 << 1280))
print("static const uint32_t kTwoOverPi[40] = {")
w = [(words >> (32 * (39 - i))) & 0xffffffff for i in range(40)]
for i in range(0, 40, 6):
    print("  " + ", ".join("0x%08xu" % v for v in w[i:i + 6]) + ",")
print("};")

pio2 = PI / 2
p1 = split(pio2, 33)
p2 = split(pio2 - p1, 33)
p3 = to_double(pio2 - p1 - p2)
print("pio2_1 =", hexd(float(p1)), "pio2_2 =", hexd(float(p2)), "pio2_3 =", hexd(p3))
h = to_double(pio2)
print("pio2_hi =", hexd(h), "pio2_lo =", hexd(to_double(pio2 - Fraction(h))))

# ln 2 by the series ln 2 = 2 atanh(1/3).
ln2 = Fraction(0)
t = Fraction(1, 3)
k = 1
while t > Fraction(1, 1 << BITS):
    ln2 += 2 * t / k
    t /= 9
    k += 2
l1 = split(ln2, 32)
print("ln2_hi32 =", hexd(float(l1)), "ln2_lo32 =", hexd(to_double(ln2 - l1)))
h = to_double(ln2)
print("ln2_hi =", hexd(h), "ln2_lo =", hexd(to_double(ln2 - Fraction(h))))
print("1/ln2 =", hexd(to_double(1 / ln2)))

# erf(k/8) (double-double) and 2/sqrt(pi) exp(-(k/8)^2) for k = 0..48.
pi_d = Decimal(PI.numerator) / Decimal(PI.denominator)
two_sqrtpi = 2 / pi_d.sqrt()
print("two_over_sqrtpi =", hexd(float(two_sqrtpi)),
      "minus 1 =", hexd(float(two_sqrtpi - 1)))
print("static const double kErfCentre[49][3] = {")
for k in range(49):
    c = Fraction(k, 8)
    s, term, n = Fraction(0), c, 0
    while n < 400:
        s += term / (2 * n + 1)
        n += 1
        term = -term * c * c / n
    erf = two_sqrtpi * Decimal(s.numerator) / Decimal(s.denominator)
    hi = float(erf)
    lo = float(erf - Decimal(hi))
    g = two_sqrtpi * (Decimal(-(c * c).numerator) / Decimal((c * c).denominator)).exp()
    print("  {%s, %s, %s}," % (hexd(hi), hexd(lo), hexd(float(g))))
print("};")
