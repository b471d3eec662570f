/* fips197.h: FIPS-197 Appendix B, "Cipher Example" (AES-128): the input, the state at
 * the start of rounds 1 to 10, the round keys, and the output, each read column by
 * column (the bytes in memory order), for the AES tests and guest programs. */
#ifndef X64EMU_TEST_FIPS197_H
#define X64EMU_TEST_FIPS197_H

__attribute__((unused)) static const char *const appendix_b_start[11] = {
    "3243f6a8885a308d313198a2e0370734", "193de3bea0f4e22b9ac68d2ae9f84808",
    "a49c7ff2689f352b6b5bea43026a5049", "aa8f5f0361dde3ef82d24ad26832469a",
    "486c4eee671d9d0d4de3b138d65f58e7", "e0927fe8c86363c0d9b1355085b8be01",
    "f1006f55c1924cef7cc88b325db5d50c", "260e2e173d41b77de86472a9fdd28b25",
    "5a4142b11949dc1fa3e019657a8c040c", "ea835cf00445332d655d98ad8596b0c5",
    "eb40f21e592e38848ba113e71bc342d2",
};
__attribute__((unused)) static const char *const appendix_b_round_key[11] = {
    "2b7e151628aed2a6abf7158809cf4f3c", "a0fafe1788542cb123a339392a6c7605",
    "f2c295f27a96b9435935807a7359f67f", "3d80477d4716fe3e1e237e446d7a883b",
    "ef44a541a8525b7fb671253bdb0bad00", "d4d1c6f87c839d87caf2b8bc11f915bc",
    "6d88a37a110b3efddbf98641ca0093fd", "4e54f70e5f5fc9f384a64fb24ea6dc4f",
    "ead27321b58dbad2312bf5607f8d292f", "ac7766f319fadc2128d12941575c006e",
    "d014f9a8c9ee2589e13f0cc8b6630ca6",
};
__attribute__((unused)) static const char appendix_b_output[] = "3925841d02dc09fbdc118597196a0b32";

#endif
