# The two ends of the "fs" sandbox around bwrap (sandbox.ts builds the
# command line). bwrap does the isolation; it does not hand over the seccomp
# program as a file (only as a descriptor), and it reports a target killed
# by signal N as exit code 128+N, which an engine would read as an exit, not
# a crash by signal. So:
#
#   perl sandbox-run.pl outer BPF_HEX bwrap ARGS... -- /usr/bin/perl sandbox-run.pl inner @STATUS@ -- COMMAND...
#
# outer (the process the engine holds): writes the filter into a pipe whose
#   read end bwrap gets as @SECCOMP@ (no file to swap under it), gives the
#   write end of a status pipe to the inside as @STATUS@, forwards catchable
#   signals to bwrap (which dies of them; --die-with-parent then kills every
#   process of the sandbox) and ends the way the target ended: same exit
#   code, or killed by the same signal.
# inner (inside the sandbox, under bwrap's pid 1): runs the target as its
#   child, without the status descriptor, and writes "signal N" there when
#   the target was killed by a signal.
# Perl (perl-base is in every Debian/Ubuntu image) because this runs around
# every target process: it starts in about a millisecond.
use strict;
# fcntl(2) numbers of x86_64 and aarch64 (the machines the seccomp filter covers): loading Fcntl costs more than
# everything else this script does
use constant { F_GETFD => 1, F_SETFD => 2, FD_CLOEXEC => 1, F_GETFL => 3, F_SETFL => 4, O_NONBLOCK => 0x800 };

sub fail { print STDERR "ff-sandbox: $_[0]\n"; exit 125 }
sub inherit { my $f = fcntl($_[0], F_GETFD, 0) // fail("fcntl: $!"); fcntl($_[0], F_SETFD, $f & ~FD_CLOEXEC) or fail("fcntl: $!") }

# End like a wait status: killed by its signal (default action restored), else its exit code.
sub end_as {
  my ($status) = @_;
  if (my $sig = $status & 127) {
    $SIG{$_} = 'DEFAULT' for keys %SIG;
    kill $sig, $$;
    exit 128 + $sig;
  }
  exit($status >> 8);
}

my @FORWARD = qw(INT TERM HUP QUIT USR1 USR2 ALRM);
my $mode = shift @ARGV // '';

if ($mode eq 'outer') {
  my $bpf = pack('H*', shift @ARGV // '');
  pipe(my $bpf_r, my $bpf_w) or fail("pipe: $!");
  pipe(my $st_r, my $st_w) or fail("pipe: $!");
  inherit($_) for $bpf_r, $st_w;
  # smaller than a pipe's buffer: written whole before bwrap reads it
  syswrite($bpf_w, $bpf) == length($bpf) or fail("seccomp pipe: $!");
  close $bpf_w;
  my ($seccomp, $status) = (fileno($bpf_r), fileno($st_w));
  my @cmd = map { $_ eq '@SECCOMP@' ? $seccomp : $_ eq '@STATUS@' ? $status : $_ } @ARGV;
  my $pid = fork() // fail("fork: $!");
  if ($pid == 0) {
    close $st_r;
    { exec { $cmd[0] } @cmd }
    print STDERR "ff-sandbox: cannot run $cmd[0]: $!\n";
    exit 127;
  }
  close $bpf_r; close $st_w;
  $SIG{$_} = sub { kill $_[0], $pid } for @FORWARD;
  $SIG{PIPE} = 'IGNORE';
  waitpid($pid, 0); # perl retries it after each forwarded signal
  my $bwrap = $?;
  # what the inside said; a process left holding the pipe must not block us
  my $fl = fcntl($st_r, F_GETFL, 0);
  fcntl($st_r, F_SETFL, $fl | O_NONBLOCK);
  my $said = '';
  sysread($st_r, $said, 64);
  end_as($said =~ /^signal (\d+)$/ ? 0 + $1 : $bwrap);
}

if ($mode eq 'inner') {
  my $fd = shift @ARGV;
  shift @ARGV if @ARGV && $ARGV[0] eq '--';
  fail('no command') unless @ARGV;
  open(my $st_w, '>&=', $fd) or fail("status descriptor $fd: $!");
  fcntl($st_w, F_SETFD, FD_CLOEXEC) or fail("fcntl: $!");
  my $pid = fork() // fail("fork: $!");
  if ($pid == 0) {
    { exec { $ARGV[0] } @ARGV }
    print STDERR "ff-sandbox: cannot run $ARGV[0]: $!\n";
    exit 127;
  }
  $SIG{$_} = sub { kill $_[0], $pid } for @FORWARD;
  $SIG{PIPE} = 'IGNORE';
  waitpid($pid, 0);
  my $status = $?;
  syswrite($st_w, "signal " . ($status & 127)) if $status & 127;
  end_as($status);
}

fail("usage: sandbox-run.pl outer|inner ...");
