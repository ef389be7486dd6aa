/* oci/sha256.h: FIPS 180-4's examples and a long input fed in odd pieces. */
#include <stdlib.h>
#include <string.h>

#include "oci/sha256.h"
#include "unit.h"

static const char *hex_of(const void *data, size_t len, size_t piece)
{
	static char hex[2 * OCI_SHA256_LEN + 1];
	uint8_t out[OCI_SHA256_LEN];
	struct oci_sha256 s;

	oci_sha256_init(&s);
	for (size_t i = 0; i < len; i += piece)
		oci_sha256_update(&s, (const char *)data + i, len - i < piece ? len - i : piece);
	oci_sha256_final(&s, out);
	for (int i = 0; i < OCI_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	return hex;
}

static void test_vectors(void)
{
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);

	CHECK_STR(hex_of("", 0, 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(hex_of("abc", 3, 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(hex_of(two, strlen(two), strlen(two)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR(hex_of(two, strlen(two), 7), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK(million != NULL);
	memset(million, 'a', 1000000);
	CHECK_STR(hex_of(million, 1000000, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	CHECK_STR(hex_of(million, 1000000, 63), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

static void test_equal(void)
{
	uint8_t a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 3, 4 }, c[4] = { 1, 2, 3, 5 };

	CHECK(oci_equal_const_time(a, b, 4));
	CHECK(!oci_equal_const_time(a, c, 4));
	CHECK(oci_equal_const_time(a, c, 3));
}

int main(void)
{
	test_vectors();
	test_equal();
	return unit_report("test_oci_sha256");
}
