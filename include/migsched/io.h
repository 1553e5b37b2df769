/* io.h: everything a reader or a writer uses, in one include: files (files.h), parsing
 * (parse.h), formatting (format.h) and the thread count (parallel.h). */
#ifndef MIGSCHED_IO_H
#define MIGSCHED_IO_H

#include "migsched/files.h"
#include "migsched/format.h"
#include "migsched/parallel.h"
#include "migsched/parse.h"

#endif
