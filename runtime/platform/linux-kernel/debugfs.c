/* SPDX-License-Identifier: MIT */
/*
 * /sys/kernel/debug/multiverse/: what multiverse-inspect shows for a
 * process, for the kernel, and a way for tests to drive the API.
 *
 *   state    every switch with its value, every multiversed function
 *            with its variants and guards and the body its entry jumps
 *            to, and every call site with its state;
 *   control  takes one command a write:
 *              commit | revert
 *              commit_fn NAME | revert_fn NAME
 *              commit_refs NAME | revert_refs NAME
 *              bind NAME 1|0
 *            NAME as the state file spells it.  The write fails with the
 *            API's error (and the message in the kernel log).
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "linux-kernel.h"

static const char *const area_states[] = {
	[MV_AREA_UNRESOLVED] = "unresolved", [MV_AREA_INVALID] = "invalid",
	[MV_AREA_SKIPPED] = "skipped", [MV_AREA_ORIG] = "original",
	[MV_AREA_BRANCH] = "patched", [MV_AREA_INLINED] = "inlined",
	[MV_AREA_COPIED] = "inlined",
};

static void show_sites(struct seq_file *m, size_t site0, size_t n)
{
	for (size_t i = site0; i < site0 + n; i++)
		seq_printf(m, "  site %pS %s\n", mv_desc_site_addr(mv_site_desc(i)),
			   area_states[mv_site_state_at(i)]);
}

static void show_switch(struct seq_file *m, const struct mv_var *v)
{
	int sgn = v->flags & MV_VAR_SIGNED;

	if (v->flags & MV_VAR_FNPTR) {
		seq_printf(m, "switch %s: function pointer %ps, ", v->name, *(void **)v->addr);
		if (v->active)
			seq_printf(m, "committed to %ps\n", v->active);
		else if (v->committed && v->reached)
			seq_printf(m, "committed to NULL, its sites still reach %ps\n", v->reached);
		else if (v->committed)
			seq_puts(m, "committed to NULL\n");
		else
			seq_puts(m, "not committed\n");
		show_sites(m, v->site0, v->n_sites);
		return;
	}
	seq_printf(m, "switch %s: %u-byte %s%s%s, value %lld\n", v->name, v->width,
		   sgn ? "signed" : "unsigned", v->flags & MV_VAR_TRACKED ? ", tracked" : "",
		   v->bound ? "" : ", unbound", mv_switch_read(v->addr, v->width, sgn));
}

static void show_function(struct seq_file *m, const struct mv_fn *f)
{
	const struct mv_desc_fn *d = f->desc;

	seq_printf(m, "function %s: ", f->name);
	if (d->flags & MV_FN_PLAIN)
		seq_puts(m, "plain (no variants)");
	else if (f->active != f->generic)
		seq_printf(m, "committed to %ps", f->active);
	else
		seq_puts(m, "generic");
	seq_printf(m, ", entry %s\n", area_states[f->entry.state]);
	for (uint32_t i = 0; i < d->n_variants; i++) {
		const struct mv_desc_variant *x = &f->variants[i];

		const struct mv_desc_guard *g = mv_desc_variant_guards(x);

		seq_printf(m, d->flags & MV_FN_PLAIN ? "  own code %ps:" : "  variant %ps:",
			   mv_desc_variant_body(x));
		for (uint32_t j = 0; j < x->n_guards; j++) {
			const struct mv_var *v = mv_find_var(mv_desc_guard_var(x, &g[j]));

			seq_printf(m, " %s in [%lld, %lld]", v ? v->name : "?", g[j].low, g[j].high);
		}
		seq_puts(m, "\n");
	}
	show_sites(m, f->site0, f->n_sites);
}

static int state_show(struct seq_file *m, void *unused)
{
	mv_lock();
	mv_sync();
	mv_check_all_sites();
	seq_printf(m, "multiverse %s: %zu switches, %zu functions, %zu sites\n",
		   multiverse_version(), mv.n_vars, mv.n_fns, mv.n_sites);
	for (size_t i = 0; i < mv.n_vars; i++)
		show_switch(m, &mv.vars[i]);
	for (size_t i = 0; i < mv.n_fns; i++)
		show_function(m, &mv.fns[i]);
	mv_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

/* The address of the function or switch named name, or NULL. */
static void *lookup(const char *name)
{
	void *addr = NULL;

	mv_lock();
	if (mv_sync() >= 0) {
		for (size_t i = 0; i < mv.n_fns && !addr; i++)
			if (!strcmp(mv.fns[i].name, name))
				addr = mv.fns[i].generic;
		for (size_t i = 0; i < mv.n_vars && !addr; i++)
			if (!strcmp(mv.vars[i].name, name))
				addr = mv.vars[i].addr;
	}
	mv_unlock();
	return addr;
}

static int run(char *cmd)
{
	char *op = strsep(&cmd, " "), *name = strsep(&cmd, " "), *arg = cmd;
	int state;
	void *addr;

	if (!strcmp(op, "commit") && !name)
		return multiverse_commit();
	if (!strcmp(op, "revert") && !name)
		return multiverse_revert();
	if (!name || !*name)
		return -EINVAL;
	addr = lookup(name);
	if (!addr) {
		pr_warn("multiverse: control: no function or switch named %s\n", name);
		return -ENOENT;
	}
	if (!strcmp(op, "commit_fn") && !arg)
		return multiverse_commit_fn(addr);
	if (!strcmp(op, "revert_fn") && !arg)
		return multiverse_revert_fn(addr);
	if (!strcmp(op, "commit_refs") && !arg)
		return multiverse_commit_refs(addr);
	if (!strcmp(op, "revert_refs") && !arg)
		return multiverse_revert_refs(addr);
	if (!strcmp(op, "bind") && arg && !kstrtoint(arg, 10, &state))
		return multiverse_bind(addr, state);
	return -EINVAL;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *pos)
{
	char buf[128], *cmd;
	int r;

	if (len >= sizeof buf)
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	cmd = strim(buf);
	r = run(cmd);
	if (r == -EINVAL)
		pr_warn("multiverse: control: '%s' is not a command (commit, revert, commit_fn NAME, revert_fn NAME, commit_refs NAME, revert_refs NAME, bind NAME 1|0)\n",
			cmd);
	return r < 0 ? r : len;
}

static const struct file_operations control_fops = {
	.write = control_write,
	.llseek = noop_llseek,
};

static int __init mv_kernel_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("multiverse", NULL);

	debugfs_create_file("state", 0444, dir, NULL, &state_fops);
	debugfs_create_file("control", 0200, dir, NULL, &control_fops);
	return 0;
}
late_initcall(mv_kernel_debugfs_init);
