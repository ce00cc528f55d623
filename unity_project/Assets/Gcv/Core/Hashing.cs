// sha256 helpers: content hashes (canonical JSON) and lowercase hex.
using System;
using System.Security.Cryptography;
using System.Text;

namespace Gcv.Core
{
    public static class Hashing
    {
        public static string Sha256Hex(byte[] data)
        {
            using (var sha = SHA256.Create())
            {
                return Hex(sha.ComputeHash(data));
            }
        }

        /// <summary>sha256 of the canonical JSON of a value (gcv.contract.canonical.content_hash).</summary>
        public static string ContentHash(JsonValue value)
        {
            return Sha256Hex(Encoding.UTF8.GetBytes(Json.Canonical(value)));
        }

        static readonly char[] HexDigits = "0123456789abcdef".ToCharArray();

        public static string Hex(byte[] bytes)
        {
            var c = new char[bytes.Length * 2];
            for (int i = 0; i < bytes.Length; i++)
            {
                c[2 * i] = HexDigits[bytes[i] >> 4];
                c[2 * i + 1] = HexDigits[bytes[i] & 15];
            }
            return new string(c);
        }
    }
}
