/*
 * edonio: readable text for the message keys ROMIO passes to MPIO_Err_create_code.
 *
 * Inside MPICH these keys ("**filenoexist") are looked up in MPICH's message tables; built on its
 * own, ROMIO has no such table, so edonio keeps one for every key ROMIO's generic code and the
 * drivers edonio builds use.
 */
#include <string.h>

#include "glue.h"

struct message {
    const char *key;
    const char *text;
};

static const struct message messages[] = {
    {"io", "I/O error"},
    {"iobadoffset", "Invalid offset"},
    {"ionegoffset", "Negative offset"},
    {"iobadwhence", "Invalid whence argument"},
    {"iorankzero", "The operation failed on the process of rank 0"},
    {"iobadfh", "Invalid file handle"},
    {"iobadsize", "Invalid size"},
    {"iobadcount", "Invalid count"},
    {"iobaddisp", "Invalid displacement"},
    {"iobadoverlap", "Filetype entries overlap or are not monotonically nondecreasing"},
    {"iofiletype", "Filetype must be constructed out of one or more etypes"},
    {"ioetype", "Etype must be a derived or predefined datatype"},
    {"iodispifseq", "Only MPI_DISPLACEMENT_CURRENT is valid with MPI_MODE_SEQUENTIAL"},
    {"ioamodeseq", "Operation not permitted with MPI_MODE_SEQUENTIAL"},
    {"ioagnomatch", "The file's aggregate amode differs across processes"},
    {"iowronly", "Cannot read from a file opened write-only"},
    {"iordonly", "Cannot write to a file opened read-only"},
    {"ioneedrd", "Read access is needed"},
    {"iopreallocrdwr", "Preallocation needs the file opened for writing"},
    {"ioRMWrdwr", "Read-modify-write needs read access: open the file MPI_MODE_RDWR"},
    {"iosharedfailed", "Could not access the shared file pointer"},
    {"iosharedunsupported", "Shared file pointers are not supported by this file system"},
    {"iosequnsupported", "MPI_MODE_SEQUENTIAL is not supported by this file system"},
    {"iosplitcoll", "A split collective operation is already active on this file"},
    {"iosplitcollnone", "No split collective operation is active on this file"},
    {"iowswc", "Write operation on a file failed with a short write count"},
    {"iowsrc", "Short write"},
    {"iorsrc", "Short read"},
    {"iofstypeunsupported", "The file system type is not supported"},
    {"iodatarepnomem", "Not enough memory for data representation conversion"},
    {"filename", "Invalid file name"},
    {"filenamedir", "Invalid file name: the directory does not exist"},
    {"filenamelong", "File name too long"},
    {"filenoexist", "File does not exist"},
    {"fileexist", "File exists"},
    {"fileaccess", "Permission denied"},
    {"filequota", "Quota exceeded"},
    {"filenospace", "No space left on device"},
    {"fileopunsupported", "Unsupported file operation"},
    {"fileamodeseq", "MPI_MODE_SEQUENTIAL cannot be combined with this operation"},
    {"fileamoderead", "MPI_MODE_CREATE or MPI_MODE_EXCL with MPI_MODE_RDONLY"},
    {"fileamodeone", "Exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR is needed"},
    {"fileamodediff", "The access mode differs across processes"},
    {"unsupporteddatarep",
     "Only the native, internal and external32 data representations are supported"},
    {"drconvnotsupported", "Data representation conversion is not supported"},
    {"datarepused", "Data representation name already in use"},
    {"datarepname", "Invalid data representation name"},
    {"datarepextent", "Invalid data representation extent"},
    {"notsame", "The argument must be the same on all processes"},
    {"nomem2", "Out of memory"},
    {"nomem", "Out of memory"},
    {"nullptr", "Null pointer argument"},
    {"dtypenull", "Null datatype"},
    {"commnull", "Null communicator"},
    {"commnotintra", "An intracommunicator is required"},
    {"info", "Invalid info object"},
    {"flag", "Invalid flag"},
    {"request", "Invalid request"},
    {"initialized", "MPI is not initialized"},
    {"arg", "Invalid argument"},
    {"oremote_fail", "Open failed on a remote process"},
    {"mpi_grequest_complete", "MPI_Grequest_complete failed"},
};

const char *edonio_message_text(const char *key, size_t keylen)
{
    for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
        if (strlen(messages[i].key) == keylen && strncmp(messages[i].key, key, keylen) == 0)
            return messages[i].text;
    }
    return NULL;
}
