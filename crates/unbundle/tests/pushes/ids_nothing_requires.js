// expect: not a bundle
// No chunk ids, and module 2 is required by nothing: ordinary code pushing an object of functions.
var jobs=[],later=function(){};jobs.push([later,{1:function(a,b,c){a.exports=1},2:function(a,b,c){a.exports=c(1)}}]);
