// Package opts reads the KEY=VALUE options that follow a name on the
// command line, as in --sched balance:limit=2,period=5ms or --app
// ep:leaves=1048576. A Reader keeps the first bad value it meets, and then
// reports an option nobody asked for, so that a caller reads every option
// it knows and checks Err once.
package opts
