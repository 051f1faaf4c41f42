# The inside of the "fs" sandbox (sandbox.ts). `unshare --user --map-root-user
# --net --mount --pid` runs this script as the process the engine holds; the
# namespaces are new, but this process is still in the worker's PID
# namespace, and its children are the first ones of the new one. It
#   1. brings the new network namespace's loopback up (ioctl, no `ip`);
#   2. remounts every mount of its (private) mount namespace read-only,
#      nosuid, nodev (locked flags kept); only /dev/null, zero, full, random,
#      urandom and tty stay usable as devices;
#   3. mounts an empty private tmpfs on each -t directory (/tmp, the
#      worker's tmpdir, /dev/shm);
#   4. binds back each -r path read-only (target directories that lived
#      under a -t directory), then each -w path writable (the job's
#      directory, possibly inside an -r one), through descriptors opened
#      before step 3 covered them;
#   5. covers each -h path (the job key file, the worker's data directory,
#      secret files): a directory with an empty read-only tmpfs, a file with
#      /dev/null;
#   6. forks pid 1 of the new PID namespace, which mounts a fresh /proc (only
#      the namespace's processes), reaps orphans and exits when this process
#      does (end of a pipe), which kills everything left in the namespace;
#   7. forks the target (pid 2) in -c, forwards catchable signals to it and
#      ends the way it ended (same exit code, or killed by the same signal),
#      so the engine sees the target's own status.
# Perl (perl-base is in every Debian/Ubuntu image) because this runs before
# every target process: mount(2) directly costs microseconds where one
# `mount` command per mount costs milliseconds, and a shell cannot tell a
# child killed by a signal from one that exited 128+n.
#
# Usage: perl sandbox-init.pl SYS_mount [-t dir]... [-w path]... [-r path]... [-h path]... -c cwd -- command args...
use strict;
use warnings;

my $SYS_mount = 0 + shift @ARGV;
my (@tmp, @rw, @ro, @hide, $cwd);
while (@ARGV && $ARGV[0] ne '--') {
  my ($flag, $v) = splice(@ARGV, 0, 2);
  if ($flag eq '-t') { push @tmp, $v } elsif ($flag eq '-w') { push @rw, $v } elsif ($flag eq '-r') { push @ro, $v }
  elsif ($flag eq '-h') { push @hide, $v } elsif ($flag eq '-c') { $cwd = $v } else { fail("unknown option $flag") }
}
shift @ARGV;
fail('no command') unless @ARGV;

sub fail { print STDERR "ff-sandbox: $_[0]\n"; exit 125 }

use constant { MS_RDONLY => 1, MS_NOSUID => 2, MS_NODEV => 4, MS_NOEXEC => 8, MS_REMOUNT => 32, MS_NOSYMFOLLOW => 256, MS_BIND => 4096 };

sub mnt {
  my ($src, $target, $type, $flags, $what) = @_;
  syscall($SYS_mount, $src, $target, $type, 0 + $flags, 0) == 0 or fail("$what $target: $!");
}

# 1. loopback up: SIOCGIFFLAGS, | IFF_UP, SIOCSIFFLAGS on struct ifreq (16-byte name, flags, padding).
socket(my $sock, 2, 2, 0) or fail("socket: $!");
my $ifr = pack('a16 s x22', 'lo');
ioctl($sock, 0x8913, $ifr) or fail("SIOCGIFFLAGS lo: $!");
my $lo = unpack('x16 s', $ifr);
ioctl($sock, 0x8914, pack('a16 s x22', 'lo', $lo | 1)) or fail("SIOCSIFFLAGS lo: $!");
close $sock;

# Descriptors of what step 3 covers: binds take them as /proc/self/fd/N.
my %fd;
for my $p (@ro, @rw) { open(my $fh, '<', $p) or fail("open $p: $!"); $fd{$p} = $fh }
my @devices = grep { -e "/dev/$_" } qw(null zero full random urandom tty);

# 2. every mount read-only (mount points as listed; the topmost mount at each path is the one remounted)
open(my $mi, '<', '/proc/self/mountinfo') or fail("mountinfo: $!");
my @mounts;
while (<$mi>) {
  my @f = split / /;
  (my $path = $f[4]) =~ s/\\([0-7]{3})/chr(oct($1))/ge;
  my %o = map { $_ => 1 } split /,/, $f[5];
  push @mounts, [$path, ($o{noexec} ? MS_NOEXEC : 0) | ($o{nosymfollow} ? MS_NOSYMFOLLOW : 0)];
}
close $mi;
mnt("/dev/$_", "/dev/$_", 0, MS_BIND, 'bind') for @devices;
my %done;
for my $m (@mounts) {
  my ($path, $keep) = @$m;
  next if $done{$path}++ || !-e $path;
  mnt(0, $path, 0, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | $keep, 'remount read-only');
}
mnt(0, "/dev/$_", 0, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_RDONLY, 'remount device') for @devices;

# 3. private tmp directories
mnt('tmpfs', $_, 'tmpfs', MS_NOSUID | MS_NODEV, 'tmpfs') for grep { -d $_ } @tmp;
chmod 01777, $_ for grep { -d $_ } @tmp;

# 4. the job's own directory writable, target directories read-only
sub mkpath { my $p = ''; for (grep { length } split m{/}, $_[0]) { $p .= "/$_"; mkdir $p unless -d $p } }
for my $p (@ro, @rw) {
  my $w = grep { $_ eq $p } @rw;
  if (-d $fd{$p}) { mkpath($p) }
  else { (my $d = $p) =~ s{/[^/]*$}{}; mkpath($d); open(my $f, '>>', $p) unless -e $p }
  mnt('/proc/self/fd/' . fileno($fd{$p}), $p, 0, MS_BIND, 'bind');
  mnt(0, $p, 0, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | ($w ? 0 : MS_RDONLY), 'remount');
}
close($_) for values %fd;

# 5. the farm's secrets: nothing to read
for my $h (@hide) {
  if (-d $h) { mnt('tmpfs', $h, 'tmpfs', MS_RDONLY | MS_NOSUID | MS_NODEV, 'cover') }
  elsif (-e $h) { mnt('/dev/null', $h, 0, MS_BIND, 'cover') }
}

# 6. pid 1: a fresh /proc, then wait for this process to end
pipe(my $life_r, my $life_w) or fail("pipe: $!");
pipe(my $ready_r, my $ready_w) or fail("pipe: $!");
my $init = fork() // fail("fork: $!");
if ($init == 0) {
  close $life_w; close $ready_r;
  $SIG{$_} = 'IGNORE' for qw(CHLD INT TERM HUP QUIT USR1 USR2 PIPE);
  my ($src, $target, $type) = ('proc', '/proc', 'proc');
  syscall($SYS_mount, $src, $target, $type, MS_NOSUID | MS_NODEV | MS_NOEXEC, 0) == 0 or do { print $ready_w "proc: $!"; exit 1 };
  close $ready_w;
  open(STDIN, '<', '/dev/null'); open(STDOUT, '>', '/dev/null'); open(STDERR, '>', '/dev/null');
  sysread($life_r, my $b, 1);
  exit 0;
}
close $life_r; close $ready_w;
my $err = do { local $/; <$ready_r> } // '';
close $ready_r;
fail("mount $err") if length $err;

# 7. the target
chdir($cwd) or fail("chdir $cwd: $!") if defined $cwd;
my $pid = fork() // fail("fork: $!");
if ($pid == 0) {
  { exec { $ARGV[0] } @ARGV }
  print STDERR "ff-sandbox: cannot run $ARGV[0]: $!\n";
  exit 127;
}
my @forward = qw(INT TERM HUP QUIT USR1 USR2 ALRM WINCH CONT TSTP);
$SIG{$_} = sub { kill $_[0], $pid } for @forward;
$SIG{PIPE} = 'IGNORE';
waitpid($pid, 0); # perl retries it after each forwarded signal
my $status = $?;
if (my $sig = $status & 127) {
  $SIG{$_} = 'DEFAULT' for @forward, 'PIPE';
  kill $sig, $$;
  exit 128 + $sig;
}
exit($status >> 8);
