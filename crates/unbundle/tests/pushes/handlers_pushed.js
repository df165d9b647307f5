// expect: not a bundle
// Handlers of one parameter pushed with a name: nothing requires them by id.
var queue=[];queue.push(["yaml",{YAML:function(t){t.version=1},TAG:function(t){t.tags=[]}}]);
