// SPDX-License-Identifier: GPL-2.0
/* Burns CPU until killed: a target for -p that has run before the attach. */
int main(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}
