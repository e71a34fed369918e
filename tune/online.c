/*
 * online.c: e4tune on a filesystem in use.  A mounted filesystem's
 * superblock belongs to the kernel: it writes its own copy over the
 * device's, and through a loop device a write to the image file is lost at
 * unmount.  So each change goes through the kernel (lib/e4/online.c) or
 * the command is refused, naming how the filesystem is in use:
 *  - -L: FS_IOC_SETFSLABEL; -U: EXT4_IOC_SETFSUUID (which the kernel
 *    refuses on a filesystem with checksums and no metadata_csum_seed, or
 *    with stable_inodes);
 *  - -c -C -e -g -i -m -r -T -u, -o (default mount options), -E stride=,
 *    stripe_width=, hash_alg=, mount_opts=, force_fsck, and -O setting the
 *    flag-only features the kernel sets online (it clears none):
 *    EXT4_IOC_SET_TUNE_SB_PARAM (Linux 6.18);
 *  - refused: -M, -j/-J, the -o journal extensions, -E test_fs, -O
 *    clearing anything or setting another feature, and casefold (Linux 6.18
 *    sets it online without loading the encoding tables that lookups in a
 *    casefolded directory then use; a NULL dereference has been reported:
 *    not tried here).
 * The checks are the offline ones, made on the device read after the
 * kernel wrote its superblock out (syncfs and a journal checkpoint); the
 * values are computed as offline, in memory, then handed to the kernel.
 */
#include "tune.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define C E4_FEAT_COMPAT
#define I E4_FEAT_INCOMPAT
#define R E4_FEAT_RO_COMPAT

/* what: the change, e.g. "changing the last mounted directory (-M)". */
static int refuse(struct tune *t, const struct e4_probe *p, const char *what)
{
	tune_err(t, 0, "%s needs the filesystem unmounted (it is %s)", what, p->busy_what);
	return 1;
}

/* The first option no kernel call makes, or NULL. */
static const char *offline_only(const struct tune *t)
{
	if (t->M_flag)
		return "changing the last mounted directory (-M)";
	if (t->journal)
		return "adding a journal (-j, -J)";
	if (t->async_commit || t->jcsum)
		return "-o journal_async_commit or journal_checksum";
	if (t->test_fs)
		return "changing the test_fs flag (-E)";
	if (t->hash_set && t->hash_alg == DX_HASH_SIPHASH)
		return "making siphash the default hash (-E hash_alg=)";
	return NULL;
}

/* -O: only features the kernel sets online (kmask, from its answer), none
 * cleared, not casefold; newf gets the feature words the command leaves. */
static int check_features(struct tune *t, const struct e4_probe *p, const uint32_t kmask[3],
			  uint32_t newf[3])
{
	const struct ext4_super_block *sb = e4_super(t->fs);
	uint32_t old[3] = { e4_le32(sb->s_feature_compat), e4_le32(sb->s_feature_incompat),
			    e4_le32(sb->s_feature_ro_compat) };
	char name[32], what[96];

	memcpy(newf, old, sizeof(old));
	if (!t->features)
		return 0;
	if (tune_features_after(t, newf))
		return 1;
	for (int k = 0; k < 3; k++) {
		uint32_t set = newf[k] & ~old[k], clear = old[k] & ~newf[k];
		uint32_t bad = clear | (set & ~kmask[k]);

		if (k == I)
			bad |= set & EXT4_FEATURE_INCOMPAT_CASEFOLD;
		for (int b = 0; b < 32; b++) {
			if (!(bad & (1U << b)))
				continue;
			snprintf(what, sizeof(what), "%s feature '%s'",
				 clear & (1U << b) ? "clearing" : "setting",
				 e4_feature_name((enum e4_feature_kind)k, 1U << b, name));
			return refuse(t, p, what);
		}
	}
	if (memcmp(newf, old, sizeof(old)) && e4_le32(sb->s_rev_level) == EXT4_GOOD_OLD_REV)
		return refuse(t, p, "a feature change on a revision 0 filesystem (-O)");
	return 0;
}

/* The kernel's answer for an operation it refused. */
static int kernel_refused(struct tune *t, const struct e4_probe *p, errcode_t err,
			  const char *what)
{
	if (err == ENOTTY || err == EOPNOTSUPP)
		tune_err(t, 0, "%s: the kernel does not make this change on a mounted "
			 "filesystem; it needs the filesystem unmounted (it is %s)", what,
			 p->busy_what);
	else if (err == EROFS)
		tune_err(t, 0, "%s: the filesystem is mounted read-only; it needs the "
			 "filesystem unmounted (it is %s)", what, p->busy_what);
	else
		tune_err(t, err, "while %s through the kernel (it is %s)", what, p->busy_what);
	return 1;
}

/* The superblock fields the command changed (in memory, from the offline
 * code) into the kernel's parameters; cur is the kernel's answer. */
static void fill_params(struct tune *t, const struct e4_tune_sb_params *cur,
			const uint32_t newf[3], struct e4_tune_sb_params *k)
{
	const struct ext4_super_block *sb = e4_super(t->fs);
	uint32_t old[3] = { cur->feature_compat, cur->feature_incompat, cur->feature_ro_compat };

	*k = *cur;
	k->set_flags = 0;
	k->set_feature_compat_mask = newf[C] & ~old[C];
	k->set_feature_incompat_mask = newf[I] & ~old[I];
	k->set_feature_ro_compat_mask = newf[R] & ~old[R];
	k->clear_feature_compat_mask = k->clear_feature_incompat_mask = 0;
	k->clear_feature_ro_compat_mask = 0;
	if (k->set_feature_compat_mask | k->set_feature_incompat_mask |
	    k->set_feature_ro_compat_mask)
		k->set_flags |= E4_TUNE_FL_EDIT_FEATURES;
	if (t->c_flag) {
		k->set_flags |= E4_TUNE_FL_MAX_MNT_COUNT;
		k->max_mnt_count = e4_le16(sb->s_max_mnt_count);
	}
	if (t->C_flag) {
		k->set_flags |= E4_TUNE_FL_MNT_COUNT;
		k->mnt_count = e4_le16(sb->s_mnt_count);
	}
	if (t->e_flag) {
		k->set_flags |= E4_TUNE_FL_ERRORS_BEHAVIOR;
		k->errors_behavior = e4_le16(sb->s_errors);
	}
	if (t->g_flag) {
		k->set_flags |= E4_TUNE_FL_RESERVED_GID;
		k->reserved_gid = e4_le16(sb->s_def_resgid);
	}
	if (t->u_flag) {
		k->set_flags |= E4_TUNE_FL_RESERVED_UID;
		k->reserved_uid = e4_le16(sb->s_def_resuid);
	}
	if (t->i_flag) {
		k->set_flags |= E4_TUNE_FL_CHECKINTRVAL;
		k->checkinterval = e4_le32(sb->s_checkinterval);
	}
	if (t->T_flag) {
		k->set_flags |= E4_TUNE_FL_LAST_CHECK_TIME;
		k->last_check_time = e4_le32(sb->s_lastcheck);
	}
	if (t->m_flag || t->r_flag) {
		k->set_flags |= E4_TUNE_FL_RESERVED_BLOCKS;
		k->reserved_blocks = e4_sb_r_blocks_count(sb);
	}
	if (t->stride_set) {
		k->set_flags |= E4_TUNE_FL_RAID_STRIDE;
		k->raid_stride = e4_le16(sb->s_raid_stride);
	}
	if (t->stripe_set) {
		k->set_flags |= E4_TUNE_FL_RAID_STRIPE_WIDTH;
		k->raid_stripe_width = e4_le32(sb->s_raid_stripe_width);
	}
	if (t->hash_set) {
		k->set_flags |= E4_TUNE_FL_DEF_HASH_ALG;
		k->def_hash_alg = sb->s_def_hash_version;
	}
	if (t->force_fsck)
		k->set_flags |= E4_TUNE_FL_FORCE_FSCK;
	if (t->mntopts) {
		k->set_flags |= E4_TUNE_FL_DEFAULT_MNT_OPTS;
		k->default_mnt_opts = e4_le32(sb->s_default_mount_opts);
	}
	if (t->ext_mount_opts) {
		k->set_flags |= E4_TUNE_FL_MOUNT_OPTS;
		memset(k->mount_opts, 0, sizeof(k->mount_opts));
		memcpy(k->mount_opts, sb->s_mount_opts, 63);
	}
}

/* -U through the kernel: it refuses a UUID change that would invalidate
 * checksums (no metadata_csum_seed) or stable inode numbers. */
static int check_uuid(struct tune *t, const struct e4_probe *p, const uint32_t newf[3])
{
	if (!t->U_flag)
		return 0;
	if (((newf[R] & (EXT4_FEATURE_RO_COMPAT_GDT_CSUM | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) &&
	     !(newf[I] & EXT4_FEATURE_INCOMPAT_CSUM_SEED)) ||
	    (newf[C] & EXT4_FEATURE_COMPAT_STABLE_INODES))
		return refuse(t, p, "changing the UUID of a filesystem with checksums but no "
			      "metadata_csum_seed, or with stable_inodes,");
	return 0;
}

/* Make the changes through fd; 0 or 1. */
static int apply(struct tune *t, const struct e4_probe *p, int fd,
		 const struct e4_tune_sb_params *cur, int have_cur, const uint32_t newf[3])
{
	struct ext4_super_block *sb = e4_super(t->fs);
	struct e4_tune_sb_params k;
	uint8_t old_lastcheck_hi = sb->s_lastcheck_hi, uuid[16];
	errcode_t err;

	/* which calls: refused before anything is said or done */
	fill_params(t, cur, newf, &k);
	if (k.set_flags && (!have_cur || (k.set_flags & ~cur->set_flags)))
		return kernel_refused(t, p, ENOTTY, "changing the superblock");
	/* the values, as offline, in the superblock in memory (not written) */
	tune_apply_settings(t);
	if (t->extended)
		tune_apply_extended(t);
	if (t->mntopts && tune_mntopts_apply(t))
		return 1;
	fill_params(t, cur, newf, &k);
	if (k.set_flags) {
		if ((k.set_flags & E4_TUNE_FL_LAST_CHECK_TIME) && sb->s_lastcheck_hi != old_lastcheck_hi)
			return refuse(t, p, "a last check time after 2106 (-T)");
		err = e4_online_set(fd, &k);
		if (err)
			return kernel_refused(t, p, err, "changing the superblock");
	}
	if (t->L_flag) {
		char label[17];

		memcpy(label, sb->s_volume_name, 16);
		label[16] = 0;
		err = e4_online_set_label(fd, label);
		if (err)
			return kernel_refused(t, p, err, "changing the label");
	}
	if (t->U_flag) {
		if (tune_parse_uuid(t->uuid, uuid))
			return 1;	/* checked before */
		err = e4_online_set_uuid(fd, uuid);
		if (err)
			return kernel_refused(t, p, err, "changing the UUID");
	}
	return 0;
}

int tune_online(struct tune *t, const struct e4_probe *p)
{
	struct e4_tune_sb_params cur;
	struct statvfs vfs;
	uint32_t kmask[3] = { 0, 0, 0 }, newf[3];
	const char *what = offline_only(t);
	int fd = -1, rc = 1, have_cur;
	errcode_t err;

	if (what)
		return refuse(t, p, what);
	if (!p->mount_dir[0])
		return refuse(t, p, "any change");
	err = e4_online_open(p->mount_dir, p->mount_dev, &fd);
	if (err) {
		tune_err(t, err, "while opening the mount point %s", p->mount_dir);
		return 1;
	}
	if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		close(fd);
		return kernel_refused(t, p, EROFS, "changing it");
	}
	/* the kernel's superblock on the device, so that the checks below
	 * judge what the kernel holds */
	err = e4_online_sync(fd);
	if (err) {
		tune_err(t, err, "while flushing the mounted filesystem");
		goto out;
	}
	have_cur = !e4_online_get(fd, &cur);
	if (have_cur) {
		kmask[C] = cur.set_feature_compat_mask;
		kmask[I] = cur.set_feature_incompat_mask;
		kmask[R] = cur.set_feature_ro_compat_mask;
	} else {
		memset(&cur, 0, sizeof(cur));
	}
	if (tune_open_fs(t, 0))
		goto out;
	if (check_features(t, p, kmask, newf) || tune_check_all(t) || check_uuid(t, p, newf))
		goto close;
	if (apply(t, p, fd, &cur, have_cur, newf))
		goto close;
	err = e4_online_sync(fd);
	if (err) {
		tune_err(t, err, "while flushing the mounted filesystem");
		goto close;
	}
	rc = 0;
	if (t->l_flag) {
		/* what the kernel wrote, read back */
		e4_close(t->fs);
		t->fs = NULL;
		rc = tune_open_fs(t, 0) || tune_list(t);
	}
close:
	if (t->fs)
		e4_close(t->fs);
out:
	close(fd);
	return rc;
}
