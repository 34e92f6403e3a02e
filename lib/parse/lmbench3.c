#include "parse/parse_tool.h"
void parse_lmbench3(struct parse_ctx *c, struct parse_lines *l) { (void)l; parse_ctx_fail(c, "todo"); }
