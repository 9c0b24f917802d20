/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) for the session's auth-key proofs.
 * Kept in rpc/ so the module needs no crypto library; pinned by the FIPS and RFC 4231 vectors. */
#include <string.h>

#include "rpc/internal.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 |
               (uint32_t)block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void at_rpc_sha256_init(at_rpc_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->total = 0;
    s->fill = 0;
}

void at_rpc_sha256_update(at_rpc_sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->total += n;
    while (n > 0) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill == 64) {
            compress(s->h, s->buf);
            s->fill = 0;
        }
    }
}

void at_rpc_sha256_final(at_rpc_sha256 *s, unsigned char out[AT_RPC_SHA256_LEN])
{
    uint64_t bits = s->total * 8;
    unsigned char pad = 0x80;
    at_rpc_sha256_update(s, &pad, 1);
    unsigned char zero = 0;
    while (s->fill != 56) at_rpc_sha256_update(s, &zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    at_rpc_sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void at_rpc_hmac_sha256(const void *key, size_t key_len, const void *const *parts, const size_t *part_lens,
                        size_t n_parts, unsigned char out[AT_RPC_SHA256_LEN])
{
    unsigned char k[64] = {0}, pad[64], inner[AT_RPC_SHA256_LEN];
    at_rpc_sha256 s;
    if (key_len > 64) {
        at_rpc_sha256_init(&s);
        at_rpc_sha256_update(&s, key, key_len);
        at_rpc_sha256_final(&s, k);
    } else if (key_len) {
        memcpy(k, key, key_len);
    }
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    at_rpc_sha256_init(&s);
    at_rpc_sha256_update(&s, pad, 64);
    for (size_t i = 0; i < n_parts; i++) at_rpc_sha256_update(&s, parts[i], part_lens[i]);
    at_rpc_sha256_final(&s, inner);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    at_rpc_sha256_init(&s);
    at_rpc_sha256_update(&s, pad, 64);
    at_rpc_sha256_update(&s, inner, sizeof inner);
    at_rpc_sha256_final(&s, out);
}

bool at_rpc_ct_equal(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= (unsigned char)(x[i] ^ y[i]);
    return d == 0;
}

void at_rpc_auth_proof(const char *auth_key, const char *label, const unsigned char first[AT_RPC_SESS_NONCE_LEN],
                       const unsigned char second[AT_RPC_SESS_NONCE_LEN], unsigned char out[AT_RPC_SESS_PROOF_LEN])
{
    const void *parts[3] = {label, first, second};
    size_t lens[3] = {strlen(label), AT_RPC_SESS_NONCE_LEN, AT_RPC_SESS_NONCE_LEN};
    at_rpc_hmac_sha256(auth_key, strlen(auth_key), parts, lens, 3, out);
}
