// flat wash shapes, a massed polygon and a filled shape with an outline
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.noStroke();
  brush.wash("#90be6d", 120);
  brush.rect(40, 360, 520, 200);
  brush.noWash();
  brush.wash("#577590", 90);
  brush.circle(170, 170, 110);
  brush.noWash();
  brush.fill("#f94144", 150);
  brush.fillBleed(0.2);
  brush.set("rotring", "#222222", 1);
  brush.beginShape(0.5);
  brush.vertex(340, 80); brush.vertex(540, 120); brush.vertex(500, 300); brush.vertex(350, 280);
  brush.endShape(true);
  brush.noFill();
  brush.noStroke();
  brush.mass("cpencil", "#f3722c", { precision: 2, strength: 1 });
  brush.polygon([[80, 420], [260, 400], [220, 540], [100, 520]]);
  brush.noMass();
}
