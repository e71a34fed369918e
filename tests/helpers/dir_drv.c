/*
 * dir_drv: drives libe4's directory writing for tests/t/lib_dir_write.sh.
 * Names are read from stdin, one per line.
 *   dir_drv IMAGE insert DIR INO FT      add each name -> INO (type FT)
 *   dir_drv IMAGE remove DIR             remove each name
 *   dir_drv IMAGE build PARENT NAME INO FT SLACK
 *                                        a new directory PARENT/NAME made in
 *                                        one pass (e4_dir_build) with each
 *                                        name -> INO
 *   dir_drv IMAGE links INO N            set INO's link count to N
 *   dir_drv names N MIN MAX SEED         print N distinct names "<i>_..." of
 *                                        MIN..MAX bytes of [a-z0-9_] (xorshift
 *                                        from SEED: the same on every machine)
 * DIR and PARENT are paths from the root.  Prints one summary line; exits
 * 1 on the first error, naming the entry.
 */
#include "e4.h"
#include "../unit/unit_dirs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const char *what, const char *name, errcode_t err)
{
	if (err)
		fprintf(stderr, "dir_drv: %s%s%s: %s\n", what, name ? " " : "", name ? name : "",
			error_message(err));
	return err != 0;
}

/* Every stdin line (without its newline), in a NULL-terminated array. */
static char **read_names(size_t *n)
{
	size_t cap = 1024, cnt = 0;
	char **v = malloc(sizeof(*v) * cap), line[512];

	while (v && fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (cnt + 1 >= cap) {
			char **b = realloc(v, sizeof(*v) * (cap *= 2));

			if (!b)
				exit(2);
			v = b;
		}
		v[cnt++] = strdup(line);
	}
	if (!v)
		exit(2);
	v[cnt] = NULL;
	*n = cnt;
	return v;
}

static int print_names(unsigned long n, unsigned lo, unsigned hi, uint32_t seed)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	char buf[300];

	if (!seed || lo > hi || hi > 255)
		return 2;
	for (unsigned long i = 0; i < n; i++) {
		unsigned len, k;

		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		len = lo + seed % (hi - lo + 1);
		k = (unsigned)snprintf(buf, sizeof(buf), "%lu_", i);
		for (; k < len; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 17;
			seed ^= seed << 5;
			buf[k] = set[seed % (sizeof(set) - 1)];
		}
		buf[k] = '\0';
		puts(buf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	e4_fs *fs;
	e4_ino_t dir, ino;
	char **names;
	size_t n, i;
	int rc = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: dir_drv IMAGE insert|remove|build|links ...\n");
		return 2;
	}
	if (!strcmp(argv[1], "names") && argc == 6)
		return print_names(strtoul(argv[2], NULL, 0), (unsigned)atoi(argv[3]),
				   (unsigned)atoi(argv[4]), (uint32_t)strtoul(argv[5], NULL, 0));
	e4_init_errors();
	if (check("open", NULL, e4_open(argv[1], E4_OPEN_RW, 0, 0, &fs)))
		return 1;
	if (!strcmp(argv[2], "links") && argc == 5) {
		rc = check("links", NULL, udir_links_set(fs, (e4_ino_t)strtoul(argv[3], NULL, 0),
							 (unsigned)strtoul(argv[4], NULL, 0)));
		goto done;
	}
	if (check("path", argv[3], e4_namei(fs, 0, 0, argv[3], 1, &dir)))
		return 1;
	names = read_names(&n);
	if (!strcmp(argv[2], "insert") && argc == 6) {
		ino = (e4_ino_t)strtoul(argv[4], NULL, 0);
		for (i = 0; i < n && !rc; i++)
			rc = check("insert", names[i],
				   e4_dir_insert(fs, dir, names[i], strlen(names[i]), ino,
						 (uint8_t)atoi(argv[5])));
		printf("inserted %zu\n", i - rc);
	} else if (!strcmp(argv[2], "remove") && argc == 4) {
		for (i = 0; i < n && !rc; i++)
			rc = check("remove", names[i],
				   e4_dir_remove(fs, dir, names[i], strlen(names[i]), NULL, NULL));
		printf("removed %zu\n", i - rc);
	} else if (!strcmp(argv[2], "build") && argc == 8) {
		struct e4_new_dirent *ents = calloc(n ? n : 1, sizeof(*ents));

		if (!ents)
			return 2;
		for (i = 0; i < n; i++) {
			ents[i].inode = (e4_ino_t)strtoul(argv[5], NULL, 0);
			ents[i].name = names[i];
			ents[i].name_len = (uint8_t)strlen(names[i]);
			ents[i].file_type = (uint8_t)atoi(argv[6]);
		}
		rc = check("build", argv[4], udir_mkdir_build(fs, dir, argv[4], ents, n, 0,
							    (unsigned)atoi(argv[7]), &ino));
		if (!rc)
			printf("built %s: inode %u, %zu entries\n", argv[4], ino, n);
		free(ents);
	} else {
		fprintf(stderr, "dir_drv: bad arguments\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
done:
	if (rc)
		return 1;
	if (check("flush", NULL, e4_alloc_flush(fs)) || check("close", NULL, e4_close(fs)))
		return 1;
	return 0;
}
