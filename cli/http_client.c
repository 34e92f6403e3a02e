#include "http_client.h"
#include "apiclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void http_client_init(struct http_client *c, int *argc, char **argv)
{
	const char *server = getenv("REGTRACK_SERVER"), *token = getenv("REGTRACK_TOKEN");
	int i, j;

	for (i = 1, j = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--server") && i + 1 < *argc)
			server = argv[++i];
		else if (!strncmp(argv[i], "--server=", 9))
			server = argv[i] + 9;
		else if (!strcmp(argv[i], "--token") && i + 1 < *argc)
			token = argv[++i];
		else if (!strncmp(argv[i], "--token=", 8))
			token = argv[i] + 8;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	argv[j] = NULL;
	snprintf(c->server, sizeof(c->server), "%s", server ? server : "http://127.0.0.1:8080");
	/* no trailing slash: paths start with one */
	if (c->server[0] && c->server[strlen(c->server) - 1] == '/')
		c->server[strlen(c->server) - 1] = '\0';
	snprintf(c->token, sizeof(c->token), "%s", token ? token : "");
	c->timeout_s = 120;
}

long http_client_request(struct http_client *c, const char *method, const char *path,
			 const char *body, size_t len, struct buf *out, struct err *e)
{
	struct api_client api;
	long status = -1;

	if (api_client_init(&api, c->server, c->token, c->timeout_s, e))
		return -1;
	if (api_client_send(&api, method, path, body, len, 0, out, &status, e))
		status = -1;
	api_client_release(&api);
	return status;
}
