// Fixed-point arithmetic, integer trigonometry and the RNG: a verbatim port of gcv/sim/fixed.py.
//
// Rules (docs/simulation.md; the Python source is the reference):
// * Lengths are Q16.16 in signed 64-bit integers (One = 65536 is one world unit).
// * Angles are integers, 65536 per turn, reduced with & 0xFFFF (also for negative values:
//   C# long & is two's complement, exactly like Python's & on negative ints).
// * C#'s >> on long is an arithmetic shift (floor), like Python's >>.
// * C#'s / truncates toward zero; Python's // floors. FloorDiv below is used wherever the
//   reference uses // so that even out-of-contract programs agree.
using System;

namespace Gcv.Core
{
    public static class Fixed
    {
        public const long One = 1L << 16;
        public const int TickHz = 60;
        public const int Turn = 1 << 16;
        public const int Quarter = 1 << 14;
        public const int AngleMask = Turn - 1;

        // sin(pi/2 * u) = u*(C0 - u^2*(C1 - u^2*(C2 - u^2*(C3 - u^2*C4)))), Q30 coefficients.
        static readonly long[] SinC = { 1686629713L, 693598668L, 85569306L, 5026995L, 172272L };

        /// <summary>QUARTER_SIN[x] = sin for x in [0, 16384], Q16 result in [0, 65536].</summary>
        public static readonly long[] QuarterSin = BuildQuarterSin();
        /// <summary>isin(a) for a in [0, 65536).</summary>
        public static readonly long[] SinTable = BuildSinTable();
        /// <summary>icos(a) = isin(a + 16384) for a in [0, 65536) (np.roll(SIN_TABLE, -QUARTER)).</summary>
        public static readonly long[] CosTable = BuildCosTable();

        static long QuarterSinOf(long x)
        {
            // All intermediates are non-negative and below 2^62: u <= 2^30, u*u <= 2^60,
            // u2 * c <= 2^30 * 2^31.
            long u = x << 16;
            long u2 = (u * u) >> 30;
            long t = SinC[3] - ((u2 * SinC[4]) >> 30);
            t = SinC[2] - ((u2 * t) >> 30);
            t = SinC[1] - ((u2 * t) >> 30);
            t = SinC[0] - ((u2 * t) >> 30);
            long v = (u * t) >> 30;
            return (v + (1L << 13)) >> 14;
        }

        static long[] BuildQuarterSin()
        {
            var table = new long[Quarter + 1];
            for (int x = 0; x <= Quarter; x++) table[x] = QuarterSinOf(x);
            return table;
        }

        static long[] BuildSinTable()
        {
            var table = new long[Turn];
            for (int a = 0; a < Turn; a++) table[a] = Isin(a);
            return table;
        }

        static long[] BuildCosTable()
        {
            var table = new long[Turn];
            for (int a = 0; a < Turn; a++) table[a] = Isin(a + Quarter);
            return table;
        }

        public static long Isin(long angle)
        {
            int a = (int)(angle & AngleMask);
            int quadrant = a >> 14;
            int x = a & (Quarter - 1);
            if (quadrant == 0) return QuarterSin[x];
            if (quadrant == 1) return QuarterSin[Quarter - x];
            if (quadrant == 2) return -QuarterSin[x];
            return -QuarterSin[Quarter - x];
        }

        public static long Icos(long angle)
        {
            return Isin(angle + Quarter);
        }

        /// <summary>atan(r) for r in [0, 65536] (Q16), in angle units [0, 8192].</summary>
        static long AtanOctant(long r)
        {
            long p = (r * (One - r)) >> 16;
            long q = 2552 + ((692 * r) >> 16);
            return (8192 * r + p * q + (1L << 15)) >> 16;
        }

        /// <summary>Angle of (dx, dy) in [0, 65536). (0, 0) points straight down (49152).
        /// Relies on |dx|, |dy| &lt; 2^47 (so that the shifted ratio fits in int64).</summary>
        public static long Iatan2(long dy, long dx)
        {
            long ax = Math.Abs(dx), ay = Math.Abs(dy);
            if (ax == 0 && ay == 0) return 3 * Quarter;
            long baseAngle;
            if (ax >= ay) baseAngle = AtanOctant((ay << 16) / ax);
            else baseAngle = Quarter - AtanOctant((ax << 16) / ay);
            long angle;
            if (dx >= 0 && dy >= 0) angle = baseAngle;
            else if (dx < 0 && dy >= 0) angle = 2 * Quarter - baseAngle;
            else if (dx < 0) angle = 2 * Quarter + baseAngle;
            else angle = Turn - baseAngle;
            return angle & AngleMask;
        }

        /// <summary>floor(sqrt(n)) for n >= 0 (math.isqrt).</summary>
        public static long IsqrtFloor(long n)
        {
            if (n < 0) throw new ArgumentOutOfRangeException("n", "isqrt of a negative number");
            if (n < 2) return n;
            long r = (long)Math.Sqrt((double)n);
            // Correct the floating estimate in both directions (exact for all int64).
            while (r > 0 && r > n / r) r--;
            while ((r + 1) <= n / (r + 1)) r++;
            return r;
        }

        /// <summary>Python's a // b (floor division) for b != 0.</summary>
        public static long FloorDiv(long a, long b)
        {
            long q = a / b;
            if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
            return q;
        }
    }

    /// <summary>The run's only random generator. Draw order is part of the spec.</summary>
    public sealed class SplitMix64
    {
        public ulong State;

        public SplitMix64(ulong seed)
        {
            State = seed;
        }

        public ulong NextU64()
        {
            unchecked
            {
                State += 0x9E3779B97F4A7C15UL;
                ulong z = State;
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
                return z ^ (z >> 31);
            }
        }

        /// <summary>Uniform-ish integer in [0, span) for 0 &lt;= span &lt;= 2^32: ((next >> 32) * span) >> 32.</summary>
        public long Below(long span)
        {
            unchecked
            {
                ulong hi = NextU64() >> 32;
                return (long)((hi * (ulong)span) >> 32);
            }
        }
    }
}
