/* stringify.h - a numeric constant as a string literal, so that a help text prints the very
 * constant the code resolves its default from. */
#ifndef BASE_STRINGIFY_H
#define BASE_STRINGIFY_H

#define PMF_STRINGIFY_(x) #x
#define PMF_STRINGIFY(x) PMF_STRINGIFY_(x)

#endif
