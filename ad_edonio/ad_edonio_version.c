/*
 * edonio: version queries (include/edonio.h).
 *
 * The only file that sees edonio's config header: ROMIO's romioconf.h defines the same autoconf
 * names (VERSION, PACKAGE_*) with ROMIO's values, so the two must not meet.
 */
#include "edonio.h"
#include "edonio_config.h"

const char *edonio_version(void)
{
    return PACKAGE_VERSION;
}

const char *edonio_romio_version(void)
{
    return EDONIO_ROMIO_VERSION;
}
