# --- qdsim's measurement library for ns-2.35 (python/qdsim/engines/ns2_lib.tcl) ---------
# Counts what qdsim counts and prints it as the protocol of qdsim.engines.measure. The
# generated part of the script above defines: ns, the nodes n(i), the links' queue monitors
# qm(j), and for each flow what kind it is; the procs below do the rest.

# A receiver-side application: ns-2's TCPSink hands it the wire bytes it delivers in order
# (TcpSink::recv -> recvBytes), so a transfer completes when the receiver has every byte, as
# qdsim measures it (the sender's `done` would come half an RTT later).
Class Application/QdsimRx -superclass Application
Application/QdsimRx instproc init {} {
	$self next
	$self instvar got_ expect_
	set got_ 0
	set expect_ {}
}
Application/QdsimRx instproc recv {nbytes} {
	$self instvar got_ expect_
	incr got_ $nbytes
	while {[llength $expect_] > 0 && $got_ >= [lindex $expect_ 0 0]} {
		set done [lindex $expect_ 0 1]
		set expect_ [lrange $expect_ 1 end]
		eval $done
	}
}
Application/QdsimRx instproc expect {bytes done} {
	$self instvar expect_
	lappend expect_ [list $bytes $done]
}

# ns-2 counts bytes in C ints (TcpSink bytes_, QueueMonitor bdepartures_): 2^31 bytes pass
# a 10 Gb/s link in 1.7 s. qd_wide accumulates a counter's changes modulo 2^32, and qd_poll
# reads every such counter each second of simulated time, so none wraps unseen.
proc qd_wide {key raw} {
	global qd_last qd_acc
	if {![info exists qd_last($key)]} {
		set qd_last($key) 0
		set qd_acc($key) 0
	}
	set qd_acc($key) [expr {$qd_acc($key) + (($raw - $qd_last($key)) & 0xFFFFFFFF)}]
	set qd_last($key) $raw
	return $qd_acc($key)
}
proc qd_poll {} {
	global ns nconn sinka qm nlinks udp_sink
	for {set c 0} {$c < $nconn} {incr c} { qd_wide s$c [$sinka($c) set bytes_] }
	for {set j 0} {$j < $nlinks} {incr j} { qd_wide b$j [$qm($j) set bdepartures_] }
	foreach f [array names udp_sink] { qd_wide u$f [$udp_sink($f) set bytes_] }
	$ns at [expr {[$ns now] + 1.0}] "qd_poll"
}

# Set at time 0, once ns-2 has reset every agent made before the run.
set qd_started 0

# One TCP connection c of flow f: agent tcpa(c), sink sinka(c), payload and wire bytes of a
# data packet, the SYN's wire bytes, the bytes asked of it so far, its receiver app.
set nconn 0
proc qd_conn {f src dst setup} {
	global qd_started ns n nconn tcpa sinka conn_flow conns pay wire syn asked wanted rxa
	set c $nconn
	incr nconn
	set parts [$setup]
	set tcpa($c) [lindex $parts 0]
	set sinka($c) [lindex $parts 1]
	set pay($c) [lindex $parts 2]
	set wire($c) [lindex $parts 3]
	set syn($c) [lindex $parts 4]
	set post [lindex $parts 5]
	$ns attach-agent $n($src) $tcpa($c)
	$ns attach-agent $n($dst) $sinka($c)
	$ns connect $tcpa($c) $sinka($c)
	# ns-2 resets the agents it knows when the run starts (Node reset); one made during the
	# run must be reset by hand, or its RTO is never initialised (rtt_init). What reset()
	# overwrites (ssthresh_ = window_) is set after it.
	if {$qd_started} {
		$tcpa($c) reset
		$sinka($c) reset
		if {$post != ""} { eval [string map [list \$t $tcpa($c)] $post] }
	} elseif {$post != ""} {
		$ns at 0 [string map [list \$t $tcpa($c)] $post]
	}
	$tcpa($c) set fid_ $f
	set conn_flow($c) $f
	lappend conns($f) $c
	set asked($c) 0
	set wanted($c) $syn($c)
	set rxa($c) ""
	return $c
}

# Hands connection c a transfer of `bytes` application bytes (ns-2's one-way TCP sends whole
# packets: ceil(bytes / payload) of them) and records its completion at the receiver.
proc qd_send {c bytes f round} {
	global ns tcpa sinka pay wire asked wanted rxa pending
	if {$rxa($c) == ""} {
		set rxa($c) [new Application/QdsimRx]
		$rxa($c) attach-agent $sinka($c)
		$rxa($c) start
	}
	set pkts [expr {($bytes + $pay($c) - 1) / $pay($c)}]
	incr asked($c) $bytes
	incr wanted($c) [expr {$pkts * $wire($c)}]
	set now [$ns now]
	set token "$f $round $now $bytes"
	set pending($token) 1
	$rxa($c) expect $wanted($c) [list qd_done $c $f $round $now $bytes]
	$tcpa($c) advanceby $pkts
}

proc qd_done {c f round start bytes} {
	global ns pending
	unset pending([list $f $round $start $bytes])
	puts "transfer $f $round $start $bytes [expr {[$ns now] - $start}]"
	qd_after_$f $c $round
}

# Repeated transfers (incast rounds): every member of a barrier starts its next round when
# all have finished the current one, after the think time.
proc qd_barrier_done {b} {
	global ns barrier_left barrier_round barrier_rounds barrier_think barrier_members
	incr barrier_left($b) -1
	if {$barrier_left($b) > 0} return
	incr barrier_round($b)
	if {$barrier_rounds($b) > 0 && $barrier_round($b) >= $barrier_rounds($b)} return
	set barrier_left($b) [llength $barrier_members($b)]
	$ns at [expr {[$ns now] + $barrier_think($b)}] "qd_barrier_start $b"
}
proc qd_barrier_start {b} {
	global barrier_members barrier_round
	foreach f $barrier_members($b) {
		qd_round_$f $barrier_round($b)
	}
}

# Counters of flow f at a phase: TCP agents' (summed over the connections it opened) or a
# datagram sink's.
proc qd_tcp_counters {f} {
	global conns tcpa sinka pay wire syn asked
	set delivered 0
	set sent 0
	set rexmit 0
	set timeouts 0
	set fast 0
	if {[info exists conns($f)]} {
		foreach c $conns($f) {
			set got [expr {[qd_wide s$c [$sinka($c) set bytes_]] - $syn($c)}]
			if {$got < 0} { set got 0 }
			set bytes [expr {wide($got) / $wire($c) * $pay($c)}]
			if {$asked($c) > 0 && $bytes > $asked($c)} { set bytes $asked($c) }
			incr delivered $bytes
			incr sent [$tcpa($c) set ndatapack_]
			incr rexmit [$tcpa($c) set nrexmitpack_]
			set to [$tcpa($c) set nrexmit_]
			incr timeouts $to
			# Window cuts with data outstanding (ncwndcuts1_; ncwndcuts_ also counts the
			# cuts of the timer firing with nothing outstanding, every RTO after a transfer
			# ends, tcp.cc:1246 and 1898) less the timeouts: the fast retransmits (and, with
			# ECN, the ECN reductions).
			incr fast [expr {[$tcpa($c) set ncwndcuts1_] - $to}]
		}
	}
	return "delivered_bytes=$delivered sent_pkts=$sent retransmits=$rexmit fast_retransmits=$fast timeouts=$timeouts"
}
proc qd_udp_counters {f} {
	global udp_sink
	set s $udp_sink($f)
	# qdsim counts a datagram's bytes beyond its 40 bytes of headers as delivered.
	return "delivered_bytes=[expr {[qd_wide u$f [$s set bytes_]] - 40 * [$s set npkts_]}]"
}

proc qd_snap {phase} {
	global ns qm qi qb qs lm nflows nlinks flowkind linkreason
	set now [$ns now]
	for {set f 0} {$f < $nflows} {incr f} {
		if {$flowkind($f) == "tcp"} {
			puts "snap $phase flow $f [qd_tcp_counters $f]"
		} else {
			puts "snap $phase flow $f [qd_udp_counters $f]"
		}
	}
	for {set j 0} {$j < $nlinks} {incr j} {
		set m $qm($j)
		# Bring the integrals up to now (an Integrator adds an interval when the value next
		# changes).
		$qi($j) newpoint $now [$m set pkts_]
		$qb($j) newpoint $now [$m set size_]
		set drops [$m set pdrops_]
		set n [$qs($j) cnt]
		set delay [expr {$n > 0 ? [$qs($j) mean] * $n : 0.0}]
		set by ""
		if {$linkreason($j) != ""} { set by " drop_$linkreason($j)=$drops" }
		if {[info exists lm($j)]} {
			set lost [$lm($j) set pdrops_]
			set drops [expr {$drops + $lost}]
			append by " drop_random_loss=$lost"
		}
		puts "snap $phase link $j arrivals=[$m set parrivals_] tx_pkts=[$m set pdepartures_] tx_bytes=[qd_wide b$j [$m set bdepartures_]] drops=$drops$by queue_pkt_s=[$qi($j) set sum_] queue_byte_s=[$qb($j) set sum_] delay_sum_s=$delay delay_n=$n"
	}
}

proc qd_finish {} {
	global pending
	qd_snap end
	foreach token [array names pending] {
		puts "transfer $token -"
	}
	puts "end -"
	flush stdout
	exit 0
}
# --- end of the library ------------------------------------------------------------------
